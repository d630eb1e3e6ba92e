#include "app/server/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "app/cli.h"
#include "app/server/dispatch.h"
#include "app/server/mcp_sessions.h"

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

// Numeric addresses only (plus "localhost"): agentbox is linked statically, and name lookup
// through NSS would need the host's shared glibc at run time.
StatusOr<UniqueFd> ListenTcp(const std::string& host, uint16_t port) {
  struct sockaddr_storage addr = {};
  socklen_t len = 0;
  std::string name = host == "localhost" ? "127.0.0.1" : host;
  if (!name.empty() && name.front() == '[' && name.back() == ']')
    name = name.substr(1, name.size() - 2);
  auto* v4 = reinterpret_cast<struct sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<struct sockaddr_in6*>(&addr);
  if (::inet_pton(AF_INET, name.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    len = sizeof(*v4);
  } else if (::inet_pton(AF_INET6, name.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    len = sizeof(*v6);
  } else {
    return InvalidArgument("--listen: " + host + ": give an IP address (or localhost)");
  }
  UniqueFd fd(::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), len) != 0) {
    return ErrnoStatus("bind " + host + ":" + std::to_string(port));
  }
  if (::listen(fd.get(), 512) != 0) return ErrnoStatus("listen");
  return fd;
}

// The port a TCP listener got: the kernel picks one for port 0, and clients must learn which.
uint16_t BoundPort(int fd, uint16_t asked) {
  struct sockaddr_storage addr = {};
  socklen_t len = sizeof(addr);
  if (asked != 0 || ::getsockname(fd, reinterpret_cast<struct sockaddr*>(&addr), &len) != 0) {
    return asked;
  }
  if (addr.ss_family == AF_INET)
    return ntohs(reinterpret_cast<struct sockaddr_in*>(&addr)->sin_port);
  return ntohs(reinterpret_cast<struct sockaddr_in6*>(&addr)->sin6_port);
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
  int Count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
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

// Open fds one connection may hold at once: its socket, the agent's socket, a hangup eventfd,
// a stdin memfd (or the create helper's two memfds and policy file).
constexpr rlim_t kFdsPerConnection = 4;
constexpr rlim_t kMaxConnections = 1024;
// How long the accept loop holds off when at the connection limit or out of fds.
constexpr int kHoldMs = 50;

// Serving many clients takes many fds: the soft limit (often 1024) goes up to the hard one,
// as Go's runtime and most servers do. Returns how many connections the fds allow.
int RaiseFileLimitForConnections() {
  struct rlimit lim;
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 64;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  rlim_t spare = lim.rlim_cur > 64 ? lim.rlim_cur - 32 : lim.rlim_cur / 2;
  return static_cast<int>(std::clamp<rlim_t>(spare / kFdsPerConnection, 4, kMaxConnections));
}

// Takes one client; false when the process is out of fds, memory or threads: the caller then
// holds off a moment instead of polling a listener it cannot accept from (a busy loop).
bool Accept(ServerContext& ctx, int listen_fd, int wake_fd, const std::atomic<bool>& draining,
            ThreadCount& threads) {
  UniqueFd client(::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
  if (!client.valid()) {
    // ECONNABORTED and the like concern one client only; the others still wait.
    return errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM;
  }
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
    return false;
  }
  return true;
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
  const int fd_bound = RaiseFileLimitForConnections();
  const int max_connections = ctx.max_connections > 0 ? ctx.max_connections : fd_bound;
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
                                   : "tcp:" + address.host + ":" +
                                         std::to_string(BoundPort(listener.get(), address.port))) +
              "\n");
  // Over the connection limit (or out of fds), new clients wait in the listen backlog: they
  // are served late, never refused or reset.
  bool out_of_resources = false;
  for (;;) {
    const bool full = threads.Count() >= max_connections;
    ctx.at_connection_limit = full;
    const bool hold = out_of_resources || full;
    struct pollfd fds[2] = {{listener.get(), static_cast<short>(hold ? 0 : POLLIN), 0},
                            {sig_fd.get(), POLLIN, 0}};
    if (::poll(fds, 2, hold ? kHoldMs : -1) < 0) continue;
    if (fds[1].revents & POLLIN) break;
    out_of_resources = false;
    if (fds[0].revents & POLLIN) {
      out_of_resources = !Accept(ctx, listener.get(), wake_fd.get(), draining, threads);
    }
  }
  Drain(std::move(listener), address, wake_fd.get(), abort_fd.get(), draining, threads);
  ctx.mcp->Clear();
  WriteStderr("agentbox serve: stopped\n");
  return OkStatus();
}

}  // namespace agentbox
