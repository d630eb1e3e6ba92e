#include "egress/proxy_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "egress/proxy_main.h"
#include "egress/relay_dial.h"
#include "proto/agent_hello.h"
#include "proto/relay_wire.h"
#include "sys/fd_passing.h"
#include "sys/netns.h"
#include "sys/process_identity.h"

extern char** environ;

namespace agentbox::egress {
namespace {
constexpr int kReportTimeoutMs = 5000;
}  // namespace

StatusOr<UniqueFd> ListenOnLoopback(uint16_t port) {
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

namespace {

uint16_t PortOf(int fd) {
  struct sockaddr_in addr = {};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<struct sockaddr*>(&addr), &len) != 0) return 0;
  return ntohs(addr.sin_port);
}

StatusOr<UniqueFd> ConnectTo(const std::string& path, int type) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return InvalidArgument("socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  if (::connect(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0) {
    return ErrnoStatus(type == SOCK_STREAM ? "connect to the sandbox's egress relay"
                                           : "connect to the sandbox's egress proxy")
        .WithContext(path);
  }
  return fd;
}

// "listen" to the relay, and its one-line answer (a few seconds at most: a command can stop
// the relay, same uid, and the exec must not hang on it).
StatusOr<std::string> ReadRelayAnswer(int fd) {
  const std::string listen = "listen\n";
  if (::send(fd, listen.data(), listen.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(listen.size())) {
    return ErrnoStatus("ask the sandbox's egress relay for a listener");
  }
  std::string line;
  while (line.find('\n') == std::string::npos && line.size() < kMaxRelayLine) {
    struct pollfd pfd = {fd, POLLIN, 0};
    char buf[kMaxRelayLine];
    const ssize_t n = ::poll(&pfd, 1, kReportTimeoutMs) == 1 ? ::recv(fd, buf, sizeof(buf), 0) : -1;
    if (n <= 0) return Unavailable("the sandbox's egress relay did not answer");
    line.append(buf, static_cast<size_t>(n));
  }
  const size_t nl = line.find('\n');
  return nl == std::string::npos ? line : line.substr(0, nl);
}

// A pipe's read end holding `token` (it fits the pipe's buffer: kAgentTokenMaxBytes).
StatusOr<UniqueFd> TokenPipe(const std::string& token) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("pipe for the egress proxy's token");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  if (::write(write_end.get(), token.data(), token.size()) != static_cast<ssize_t>(token.size())) {
    return ErrnoStatus("write the egress proxy's token");
  }
  return read_end;
}

}  // namespace

StatusOr<pid_t> StartEgressProxy(const SandboxSpec& spec, int control, bool listening,
                                 int watch_pidfd, const RelayAccess& relay,
                                 const std::string& log_path) {
  UniqueFd token_pipe;
  if (!relay.tcp_address.empty()) {
    AB_ASSIGN_OR_RETURN(token_pipe, TokenPipe(relay.token));
  }
  const int relay_dir = relay.tcp_address.empty() ? relay.dir_fd : token_pipe.get();
  std::vector<std::string> args = {"agentbox",      std::string(kEgressProxyCommand),
                                   "--connections", std::to_string(spec.limits.egress_connections),
                                   "--bytes",       std::to_string(spec.limits.egress_bytes)};
  if (listening) args.push_back("--listening");
  if (watch_pidfd >= 0) args.insert(args.end(), {"--watch-fd", "4"});
  if (!relay.tcp_address.empty()) {
    args.insert(args.end(), {"--relay-tcp", relay.tcp_address, "--relay-token-fd", "5"});
  } else if (relay_dir >= 0) {
    args.insert(args.end(), {"--relay-dir-fd", "5"});
  }
  for (const std::string& p : spec.allow_hosts) args.insert(args.end(), {"--allow", p});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Above 5 first, so placing one at 3, 4 or 5 cannot clobber another.
  UniqueFd high_control(::fcntl(control, F_DUPFD_CLOEXEC, 10));
  UniqueFd high_watch(watch_pidfd >= 0 ? ::fcntl(watch_pidfd, F_DUPFD_CLOEXEC, 10) : -1);
  UniqueFd high_relay(relay_dir >= 0 ? ::fcntl(relay_dir, F_DUPFD_CLOEXEC, 10) : -1);
  if (!high_control.valid() || (watch_pidfd >= 0 && !high_watch.valid()) ||
      (relay_dir >= 0 && !high_relay.valid())) {
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
  if (relay_dir >= 0) posix_spawn_file_actions_adddup2(&actions, high_relay.get(), 5);
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
  AB_RETURN_IF_ERROR(sys::InNetworkNamespace(netns_fd, [&] {
    result = ListenOnLoopback(port);
    return result.status();
  }));
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
  AB_ASSIGN_OR_RETURN(UniqueFd control, ConnectTo(socket_path, SOCK_SEQPACKET));
  const std::string ns = "/proc/" + std::to_string(init_pid) + "/ns/net";
  UniqueFd netns(::open(ns.c_str(), O_RDONLY | O_CLOEXEC));
  // Checked after the open: the namespace is the sandbox's only if its PID 1 is still that one.
  if (!netns.valid() || !ProcessRunning(init_pid, init_start_time)) {
    return Unavailable("the sandbox's PID 1 is gone: no network namespace to listen in");
  }
  AB_ASSIGN_OR_RETURN(UniqueFd listener, ListenInNamespace(netns.get(), 0));
  return Open(std::move(control), std::move(listener));
}

StatusOr<ExecChannel> ExecChannel::OpenRelayed(const std::string& socket_path,
                                               const std::string& relay_path,
                                               const std::string& token) {
  AB_ASSIGN_OR_RETURN(UniqueFd control, ConnectTo(socket_path, SOCK_SEQPACKET));
  UniqueFd owner;
  if (IsTcpAgentAddress(relay_path)) {
    AB_ASSIGN_OR_RETURN(owner, DialTcpRelay(relay_path, token));
  } else {
    AB_ASSIGN_OR_RETURN(owner, ConnectTo(relay_path, SOCK_STREAM));
  }
  AB_ASSIGN_OR_RETURN(std::string line, ReadRelayAnswer(owner.get()));
  auto answer = ParseRelayListenAnswer(line);
  if (!answer) return Unavailable("the sandbox's egress relay answered \"" + line + "\"");
  const std::string message = "relay " + std::to_string(answer->first);
  if (sys::SendWithFd(control.get(), message.data(), message.size(), owner.get()) !=
      static_cast<ssize_t>(message.size())) {
    return ErrnoStatus("hand the exec's relay listener to the egress proxy");
  }
  ExecChannel channel;
  channel.port_ = answer->second;
  channel.control_ = std::move(control);
  return channel;
}

Status ExecChannel::KeepForBackground() {
  constexpr std::string_view kBackground = "background";
  const bool sent = ::send(control_.get(), kBackground.data(), kBackground.size(), MSG_NOSIGNAL) ==
                    static_cast<ssize_t>(kBackground.size());
  control_.reset();
  return sent ? OkStatus() : ErrnoStatus("keep the background processes' egress listener");
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
