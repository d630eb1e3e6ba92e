#include "app/server/http_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "app/cli.h"
#include "app/server/dispatch.h"

namespace agentbox {
namespace {

StatusOr<UniqueFd> ListenUnix(const std::string& path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return InvalidArgument("socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
  // The umask makes the socket 0600 from birth: no window in which others could connect.
  mode_t old = ::umask(0177);
  int rc = ::bind(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr));
  ::umask(old);
  if (rc != 0) return ErrnoStatus("bind " + path);
  if (::listen(fd.get(), 512) != 0) return ErrnoStatus("listen on " + path);
  return fd;
}

StatusOr<UniqueFd> ListenTcp(const std::string& host, uint16_t port) {
  struct addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  struct addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int err = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (err != 0) return InvalidArgument("--listen: " + host + ": " + ::gai_strerror(err));
  std::unique_ptr<struct addrinfo, void (*)(struct addrinfo*)> owned(res, ::freeaddrinfo);
  UniqueFd fd(::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd.get(), res->ai_addr, res->ai_addrlen) != 0) {
    return ErrnoStatus("bind " + host + ":" + service);
  }
  if (::listen(fd.get(), 512) != 0) return ErrnoStatus("listen");
  return fd;
}

// Counts connection threads, so shutdown can wait for them.
class ThreadCount {
 public:
  void Add() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
  }
  void Done() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--count_ == 0) cv_.notify_all();
  }
  bool WaitZero(std::chrono::seconds limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, limit, [this] { return count_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_ = 0;
};

void Accept(ServerContext& ctx, int listen_fd, int wake_fd, const std::atomic<bool>& draining,
            ThreadCount& threads) {
  UniqueFd client(::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
  if (!client.valid()) return;  // EMFILE, a reset before accept: the next poll retries
  int one = 1;
  // Small answers go out at once: Nagle would hold them for the client's delayed ACK.
  ::setsockopt(client.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  threads.Add();
  try {
    std::thread([&ctx, &draining, &threads, wake_fd, fd = std::move(client)]() mutable {
      ServeConnection(ctx, std::move(fd), wake_fd, draining);
      threads.Done();
    }).detach();
  } catch (const std::system_error&) {
    threads.Done();  // out of threads: this client is dropped, the server lives on
  }
}

// Stops accepting, wakes idle connections, gives requests in flight the grace period, then
// cancels the commands still running.
void Drain(UniqueFd listener, const ListenAddress& address, int wake_fd, int abort_fd,
           std::atomic<bool>& draining, ThreadCount& threads) {
  // Stop accepting first, so a client retrying elsewhere is told at once.
  listener.reset();
  if (address.unix_socket) ::unlink(address.path.c_str());
  draining = true;
  uint64_t one = 1;
  (void)!::write(wake_fd, &one, sizeof(one));
  if (!threads.WaitZero(std::chrono::seconds(kDrainGraceSeconds))) {
    WriteStderr("agentbox serve: grace period over, cancelling the commands still running\n");
    (void)!::write(abort_fd, &one, sizeof(one));
    if (!threads.WaitZero(std::chrono::seconds(3))) {
      // A thread stuck past cancellation still points at this frame: leave without
      // unwinding it (the sandboxes live on; their commands were cancelled).
      WriteStderr("agentbox serve: stopped with requests unfinished\n");
      ::_exit(0);
    }
  }
}

}  // namespace

Status BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  if (::pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return Internal("pthread_sigmask");
  ::signal(SIGPIPE, SIG_IGN);
  return OkStatus();
}

Status RunServer(ServerContext& ctx, const ListenAddress& address) {
  AB_ASSIGN_OR_RETURN(UniqueFd listener, address.unix_socket
                                             ? ListenUnix(address.path)
                                             : ListenTcp(address.host, address.port));
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  UniqueFd sig_fd(::signalfd(-1, &set, SFD_CLOEXEC));
  UniqueFd wake_fd(::eventfd(0, EFD_CLOEXEC));
  UniqueFd abort_fd(::eventfd(0, EFD_CLOEXEC));
  if (!sig_fd.valid() || !wake_fd.valid() || !abort_fd.valid()) return ErrnoStatus("signalfd");
  ctx.abort_fd = abort_fd.get();
  std::atomic<bool> draining = false;
  ThreadCount threads;
  WriteStderr("agentbox serve: listening on " +
              (address.unix_socket ? "unix:" + address.path
                                   : "tcp:" + address.host + ":" + std::to_string(address.port)) +
              "\n");
  for (;;) {
    struct pollfd fds[2] = {{listener.get(), POLLIN, 0}, {sig_fd.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents & POLLIN) break;
    if (fds[0].revents & POLLIN) Accept(ctx, listener.get(), wake_fd.get(), draining, threads);
  }
  Drain(std::move(listener), address, wake_fd.get(), abort_fd.get(), draining, threads);
  EndMcpSessions(*ctx.mcp);
  WriteStderr("agentbox serve: stopped\n");
  return OkStatus();
}

}  // namespace agentbox
