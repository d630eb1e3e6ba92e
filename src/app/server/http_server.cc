#include "app/server/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "app/cli.h"
#include "app/server/connection_loop.h"
#include "app/server/mcp_sessions.h"
#include "app/server/periodic.h"

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

// Open fds a request may hold besides its socket while a worker runs it: the agent's socket, a
// hangup eventfd, a stdin memfd (or the create helper's two memfds and policy file).
constexpr rlim_t kFdsPerWorker = 4;
constexpr rlim_t kSpareFds = 64;

// Serving many clients takes many fds: the soft limit (often 1024) goes up to the hard one,
// as Go's runtime and most servers do. Returns how many connections the fds allow, with room
// for every worker's own fds.
int RaiseFileLimitForConnections(size_t workers) {
  struct rlimit lim;
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 64;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  const rlim_t reserved = kSpareFds + kFdsPerWorker * workers;
  const rlim_t spare = lim.rlim_cur > reserved + 16 ? lim.rlim_cur - reserved : 16;
  return static_cast<int>(std::min<rlim_t>(spare, kMaxConnections));
}

LoopSettings SettingsFor(const ServerConfig& config) {
  LoopSettings s;
  s.long_workers = static_cast<size_t>(config.workers > 0 ? config.workers : kDefaultWorkers);
  const int fd_bound = RaiseFileLimitForConnections(s.long_workers + s.short_workers);
  s.max_connections =
      config.max_connections > 0 ? std::min(config.max_connections, fd_bound) : fd_bound;
  s.max_per_peer = config.max_connections_per_peer > 0 ? config.max_connections_per_peer
                                                       : kDefaultConnectionsPerPeer;
  auto ms = [](double seconds) {
    return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  };
  s.head_timeout = ms(config.head_timeout_seconds);
  s.body_timeout = ms(config.body_timeout_seconds);
  s.idle_timeout = ms(config.idle_timeout_seconds);
  return s;
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

Status RunServer(ServerContext& ctx, const ListenAddress& address, UniqueFd inherited) {
  const LoopSettings settings = SettingsFor(ctx.config);
  UniqueFd listener = std::move(inherited);
  if (!listener.valid()) {
    AB_ASSIGN_OR_RETURN(listener, address.unix_socket ? ListenUnix(address.path)
                                                      : ListenTcp(address.host, address.port));
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  UniqueFd sig_fd(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  UniqueFd abort_fd(::eventfd(0, EFD_CLOEXEC));
  if (!sig_fd.valid() || !abort_fd.valid()) return ErrnoStatus("signalfd");
  ctx.abort_fd = abort_fd.get();
  WriteStderr("agentbox serve: listening on " + std::string(address.inherited ? "(systemd) " : "") +
              (address.unix_socket ? "unix:" + address.path
                                   : "tcp:" + address.host + ":" +
                                         std::to_string(BoundPort(listener.get(), address.port))) +
              "\n");
  {
    // Sessions whose clients left without DELETE /mcp are ended, and their sandboxes removed,
    // checked a few times per idle period; sandboxes whose ttl passed go within a second.
    const auto idle_check = std::min<std::chrono::steady_clock::duration>(
        ctx.mcp->stale_after() / 4, std::chrono::seconds(30));
    Periodic end_idle_sessions(idle_check, [&ctx] { ctx.mcp->EndIdle(); });
    Periodic remove_expired(std::chrono::seconds(1),
                            [&ctx] { (void)ctx.Manager().RemoveExpired(); });
    ConnectionLoop loop(ctx, settings);
    loop.Run(std::move(listener), address, std::move(sig_fd), abort_fd.get());
  }
  ctx.mcp->Clear();
  WriteStderr("agentbox serve: stopped\n");
  return OkStatus();
}

}  // namespace agentbox
