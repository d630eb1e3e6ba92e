#include "egress/proxy_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "egress/proxy_main.h"
#include "sys/fd_passing.h"
#include "sys/loopback.h"
#include "sys/process_identity.h"

extern char** environ;

namespace agentbox::egress {
namespace {

constexpr int kReportTimeoutMs = 5000;

// On the calling thread, which must be one of its own: it stays in the namespace.
StatusOr<UniqueFd> ListenHere(int netns_fd, uint16_t port) {
  if (::setns(netns_fd, CLONE_NEWNET) != 0) return ErrnoStatus("enter the sandbox's network");
  if (!sys::BringUpLoopback()) return ErrnoStatus("bring up the sandbox's lo");
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(fd.get(), 128) != 0) {
    return ErrnoStatus("listen on 127.0.0.1:" + std::to_string(port) + " in the sandbox");
  }
  return fd;
}

uint16_t PortOf(int fd) {
  struct sockaddr_in addr = {};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<struct sockaddr*>(&addr), &len) != 0) return 0;
  return ntohs(addr.sin_port);
}

StatusOr<UniqueFd> ConnectTo(const std::string& path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return InvalidArgument("socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  if (::connect(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0) {
    return ErrnoStatus("connect to the sandbox's egress proxy").WithContext(path);
  }
  return fd;
}

}  // namespace

StatusOr<pid_t> StartEgressProxy(const SandboxSpec& spec, int control, bool listening,
                                 int watch_pidfd, const std::string& log_path) {
  std::vector<std::string> args = {"agentbox",      std::string(kEgressProxyCommand),
                                   "--connections", std::to_string(spec.limits.egress_connections),
                                   "--bytes",       std::to_string(spec.limits.egress_bytes)};
  if (listening) args.push_back("--listening");
  if (watch_pidfd >= 0) args.insert(args.end(), {"--watch-fd", "4"});
  for (const std::string& p : spec.allow_hosts) args.insert(args.end(), {"--allow", p});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Above 4 first, so placing one at 3 or 4 cannot clobber the other.
  UniqueFd high_control(::fcntl(control, F_DUPFD_CLOEXEC, 10));
  UniqueFd high_watch(watch_pidfd >= 0 ? ::fcntl(watch_pidfd, F_DUPFD_CLOEXEC, 10) : -1);
  if (!high_control.valid() || (watch_pidfd >= 0 && !high_watch.valid())) {
    return ErrnoStatus("dup the egress proxy's fds");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, log_path.empty() ? "/dev/null" : log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, high_control.get(), 3);
  if (watch_pidfd >= 0) posix_spawn_file_actions_adddup2(&actions, high_watch.get(), 4);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  // Its own session: a terminal's Ctrl-C is for the CLI, which ends the proxy by hanging up.
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, "/proc/self/exe", &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return ErrnoStatus("start the egress proxy", rc);
  return pid;
}

StatusOr<UniqueFd> ListenInNamespace(int netns_fd, uint16_t port) {
  StatusOr<UniqueFd> result = Internal("no listener");
  std::thread([&] { result = ListenHere(netns_fd, port); }).join();
  return result;
}

StatusOr<ExecChannel> ExecChannel::Open(UniqueFd control, UniqueFd listener) {
  ExecChannel channel;
  channel.port_ = PortOf(listener.get());
  if (sys::SendWithFd(control.get(), "open", 4, listener.get()) != 4) {
    return ErrnoStatus("hand the exec's listener to the egress proxy");
  }
  channel.control_ = std::move(control);
  return channel;
}

StatusOr<ExecChannel> ExecChannel::OpenForSandbox(const std::string& socket_path, pid_t init_pid,
                                                  uint64_t init_start_time) {
  AB_ASSIGN_OR_RETURN(UniqueFd control, ConnectTo(socket_path));
  const std::string ns = "/proc/" + std::to_string(init_pid) + "/ns/net";
  UniqueFd netns(::open(ns.c_str(), O_RDONLY | O_CLOEXEC));
  // Checked after the open: the namespace is the sandbox's only if its PID 1 is still that one.
  if (!netns.valid() || !ProcessRunning(init_pid, init_start_time)) {
    return Unavailable("the sandbox's PID 1 is gone: no network namespace to listen in");
  }
  AB_ASSIGN_OR_RETURN(UniqueFd listener, ListenInNamespace(netns.get(), 0));
  return Open(std::move(control), std::move(listener));
}

NetworkReport ExecChannel::Finish() {
  NetworkReport fallback;
  fallback.egress = true;
  if (!control_.valid() || ::send(control_.get(), "finish", 6, MSG_NOSIGNAL) != 6) return fallback;
  struct pollfd pfd = {control_.get(), POLLIN, 0};
  if (::poll(&pfd, 1, kReportTimeoutMs) <= 0) return fallback;
  std::string buf(256 * 1024, '\0');
  const ssize_t n = ::recv(control_.get(), buf.data(), buf.size(), 0);
  control_.reset();
  if (n <= 0) return fallback;
  buf.resize(static_cast<size_t>(n));
  auto json = nlohmann::json::parse(buf, nullptr, false);
  auto report = NetworkFromJson(json);
  return report.ok() ? *report : fallback;
}

}  // namespace agentbox::egress
