// agentbox-agent as PID 1 of a box.
//
// Accepts connections on its listening socket — inherited as fd 3 in a native sandbox (created by
// the host in a directory only the host can open), bound by itself in a container (--listen) —
// (on TCP in a pod, --listen-tcp: each connection waits at the hello gate, agent/hello_gate.h,
// until its token is checked; one whose hello names the egress relay goes to the relay instead,
// agent/egress_relay.h) and gives each to a handler process of its own, so a slow or hung
// request never blocks another: the warm handler forked ahead of time (agent/warm_handler.h), else
// a new fork. Only the host may talk to it: a peer with a pid in the agent's PID namespace (on TCP:
// an address of the pod's own network) is inside the box, and is hung up on at once. As PID 1 it
// reaps every orphan, and kills every child that is not one of its handlers: the remains of an exec
// tree whose subreapers were killed (container mode).
#include "agent/agent_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>

#include "agent/agent_socket.h"
#include "agent/agent_user.h"
#include "agent/connection.h"
#include "agent/container_setup.h"
#include "agent/control_channel.h"
#include "agent/egress_relay.h"
#include "agent/exec_lookups.h"
#include "agent/hello_gate.h"
#include "agent/process_router.h"
#include "agent/warm_handler.h"
#include "proc/process_tree.h"
#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"
#include "proto/exec_result.h"
#include "proto/exec_wire.h"
#include "spec/sandbox_spec.h"
#include "sys/fd_passing.h"

namespace agentbox {
namespace {

constexpr int kInheritedListenFd = 3;
// Container mode: how often PID 1 also looks for strays between SIGCHLDs (a process can be
// reparented to PID 1 without PID 1 getting any signal).
constexpr int kStrayScanIntervalMs = 1000;

struct AgentSockets {
  UniqueFd listen;
  UniqueFd relay;  // the egress relay's (agent/egress_relay.h); invalid: no relay
  // TCP (--egress-relay-tcp): `relay` is one end of a socketpair and this the other, on which
  // PID 1 sends the relay each connection whose hello asked for it.
  UniqueFd relay_feed;
};

Status MakeRelayFeed(AgentSockets* sockets) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    return ErrnoStatus("socketpair for the egress relay");
  }
  sockets->relay.reset(pair[0]);
  sockets->relay_feed.reset(pair[1]);
  // PID 1 never waits on the relay: a full queue drops the connection (SendWithFd: EAGAIN).
  if (::fcntl(pair[1], F_SETFL, O_NONBLOCK) != 0) return ErrnoStatus("fcntl the relay's feed");
  return OkStatus();
}

// The listening sockets, and in container mode the checks and hardening that come first.
StatusOr<AgentSockets> SetUp(const AgentOptions& options) {
  AgentSockets sockets;
  SetAgentUser(options.user);
  if (options.mode == AgentMode::kNative) {
    sockets.listen.reset(kInheritedListenFd);
    return sockets;
  }
  AB_RETURN_IF_ERROR(EnterSandboxUserNamespace(options.clock_start));
  AB_RETURN_IF_ERROR(CheckContainerIdentity());
  AB_RETURN_IF_ERROR(HardenContainerAgent());
  if (!options.egress_relay_path.empty()) {
    // Before the agent's own socket: the host seals the run dir once the agent answers, and
    // nothing can be bound there after. 0666: the host's egress proxy (its own uid) connects;
    // the directories above are the host's root-only state dir.
    AB_ASSIGN_OR_RETURN(sockets.relay, BindListeningSocket(options.egress_relay_path, 0666));
  }
  if (!options.listen_tcp.empty()) {
    if (options.egress_relay_tcp) AB_RETURN_IF_ERROR(MakeRelayFeed(&sockets));
    AB_ASSIGN_OR_RETURN(sockets.listen, BindTcpListeningSocket(options.listen_tcp));
  } else {
    AB_ASSIGN_OR_RETURN(sockets.listen, BindListeningSocket(options.listen_path));
  }
  return sockets;
}

// A handler PID 1 forked, serving a connection or keeping a background process.
struct HandlerSlot {
  int conn = -1;     // its connection, container mode (answered for it if it is killed)
  UniqueFd control;  // agent/control_channel.h; PID 1's end, non-blocking
};

// Kills every child of PID 1 that is not a connection handler (warm or serving) or the egress
// relay. Its death brings a SIGCHLD, the reap and another scan: the stray's own children,
// reparented to PID 1 by then, go next.
void KillStrays(const std::map<pid_t, HandlerSlot>& handlers, pid_t warm_handler, pid_t relay) {
  struct Known {
    const std::map<pid_t, HandlerSlot>* handlers;
    pid_t warm, relay;
  } known = {&handlers, warm_handler, relay};
  ForEachChild(
      [](pid_t pid, void* ctx) {
        auto* k = static_cast<const Known*>(ctx);
        if (pid != k->warm && pid != k->relay && !k->handlers->contains(pid)) ::kill(pid, SIGKILL);
      },
      &known);
}

// Container mode: a handler shares uid 1000 with every command, so a command's `kill -9 -1`
// can kill it (never PID 1). PID 1 keeps each handler's connection for that case and answers
// the host itself, so the client gets a result that says what happened, not a broken stream.
void AnswerForKilledHandler(int conn_fd, int signal) {
  ExecResult result = ErrorResult(
      Internal("the exec's handler in the sandbox was killed by signal " + std::to_string(signal) +
               " (a command of this sandbox signalled it, e.g. kill -9 -1)"));
  result.exit_code = 128 + signal;
  result.signal = signal;
  result.reason = ExitReason::kSignaled;
  (void)WriteFrame(conn_fd, FrameType::kResponse, ExecResultToWire(result));
}

// One line per second at most: a command connecting in a loop must not flood the box's log.
// peer -1: a TCP peer with an address of the sandbox's own network.
void LogRefusedPeer(pid_t peer) {
  static time_t last_logged = 0;
  static unsigned suppressed = 0;
  time_t now = ::time(nullptr);
  if (now == last_logged) {
    ++suppressed;
    return;
  }
  const std::string who = peer < 0 ? "an address of the sandbox's own network"
                                   : "pid " + std::to_string(peer) + " inside the sandbox";
  std::fprintf(stderr,
               "agentbox-agent: refused a connection from %s (only the host may connect; %u more "
               "refused since the last line)\n",
               who.c_str(), suppressed);
  last_logged = now;
  suppressed = 0;
}

// The sandbox's DNS catcher, in PID 1 for the sandbox's life (agent/exec_lookups.h). Without
// one (127.0.0.1:53 taken, or privileged where the agent has no capability) lookups fail as they
// would anyway, and results fall back to reading the command's stderr.
std::unique_ptr<DnsCatcher> OpenCatcher() {
  auto catcher = DnsCatcher::Open();
  if (catcher.ok()) return std::move(*catcher);
  std::fprintf(stderr, "agentbox-agent: no DNS catcher: %s\n", catcher.status().message().c_str());
  return nullptr;
}

class Agent {
 public:
  Agent(const AgentOptions& options, AgentSockets sockets, int sig_fd, int workspace_fd)
      : listen_fd_(sockets.listen.release()),
        sig_fd_(sig_fd),
        catcher_(OpenCatcher()),
        relay_fd_(sockets.relay.release()),
        relay_feed_(sockets.relay_feed.release()) {
    if (!options.listen_tcp.empty()) {
      gate_ = std::make_unique<HelloGate>(options.token, relay_feed_ >= 0, options.token_by_claim);
    }
    context_.exec = {options.mode, options.disk_watch, options.random_seed, options.open_files};
    context_.workspace_fd = workspace_fd;
  }

  [[noreturn]] void Serve() {
    ForkRelay();
    warm_ = ForkWarmHandler(context_, AgentFds());
    const int timeout_ms = context_.exec.mode == AgentMode::kContainer ? kStrayScanIntervalMs : -1;
    for (;;) {
      // The warm handler's control socket turns readable when it is ready (or gone).
      int warm_fd = warm_.alive() && !warm_.prepared ? warm_.control.get() : -1;
      std::vector<struct pollfd> pfds = {
          {listen_fd_, POLLIN, 0}, {sig_fd_, POLLIN, 0}, {warm_fd, POLLIN, 0}};
      std::vector<pid_t> talking;  // the handlers whose control sockets are polled, in order
      for (const auto& [pid, slot] : handlers_) {
        if (!slot.control.valid()) continue;
        pfds.push_back({slot.control.get(), POLLIN, 0});
        talking.push_back(pid);
      }
      const size_t dns_at = pfds.size();
      if (catcher_) {
        for (int fd : catcher_->fds()) pfds.push_back({fd, POLLIN, 0});
      }
      const size_t gate_at = pfds.size();
      if (gate_) {
        for (int fd : gate_->fds()) pfds.push_back({fd, POLLIN, 0});
      }
      int n = ::poll(pfds.data(), pfds.size(), timeout_ms);
      if (n < 0 && errno != EINTR) {
        std::fprintf(stderr, "agentbox-agent: poll: %s\n", std::strerror(errno));
        ::_exit(1);
      }
      if (n > 0 && pfds[2].revents) AwaitWarmReady(warm_);
      for (size_t i = dns_at; n > 0 && i < gate_at; ++i) {
        if (pfds[i].revents) catcher_->OnReadable(pfds[i].fd);
      }
      for (size_t i = 0; n > 0 && i < talking.size(); ++i) {
        if (pfds[3 + i].revents) OnControl(talking[i]);
      }
      if (n == 0 || pfds[1].revents) ReapAndKillStrays();
      if (gate_) OnGate(pfds, n > 0 ? gate_at : pfds.size());
      if (n > 0 && pfds[0].revents) Accept();
    }
  }

 private:
  void ReapAndKillStrays() {
    struct signalfd_siginfo info;
    while (::read(sig_fd_, &info, sizeof(info)) > 0) {
    }
    pid_t pid;
    int status = 0;
    bool handler_done = false;
    while ((pid = ::waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
      if (pid == warm_.pid) warm_ = {};  // killed while waiting: replaced when a handler ends
      if (pid == relay_pid_) relay_pid_ = -1;
      auto it = handlers_.find(pid);
      if (it == handlers_.end()) continue;
      if (it->second.conn >= 0) {
        if (WIFSIGNALED(status)) AnswerForKilledHandler(it->second.conn, WTERMSIG(status));
        ::close(it->second.conn);
      }
      handlers_.erase(it);
      processes_.OnHandlerGone(pid);
      handler_done = true;
    }
    // The next warm handler is forked once a request is over, not while one is served: the fork
    // and the new handler's warm-up would take a CPU from it. A command killing warm handlers in
    // a loop makes the box fork at most one per finished request.
    if (handler_done && !warm_.alive()) warm_ = ForkWarmHandler(context_, AgentFds());
    ForkRelay();
    KillStrays(handlers_, warm_.pid, relay_pid_);
  }

  // The egress relay, when this sandbox has one and it is not running: at start, and again
  // after a command killed it (at most once a second: a command killing it in a loop must not
  // keep PID 1 forking). The listening socket stays PID 1's, so the host finds the same one.
  void ForkRelay() {
    if (relay_fd_ < 0 || relay_pid_ > 0) return;
    const time_t now = ::time(nullptr);
    if (now == last_relay_fork_) return;
    last_relay_fork_ = now;
    std::vector<int> fds = AgentFds();
    const pid_t pid = ::fork();
    if (pid == 0) {
      fds.erase(std::remove(fds.begin(), fds.end(), relay_fd_), fds.end());
      EnterHandlerProcess(fds);
      RunEgressRelay(relay_fd_, relay_feed_ >= 0);
    }
    if (pid > 0) relay_pid_ = pid;
  }

  // TCP: the hellos that arrived (pfds from `from` on are the gate's), then the overdue ones.
  void OnGate(const std::vector<struct pollfd>& pfds, size_t from) {
    for (size_t i = from; i < pfds.size(); ++i) {
      if (!pfds[i].revents) continue;
      HelloTarget target = HelloTarget::kAgent;
      UniqueFd conn = gate_->OnReadable(pfds[i].fd, &target);
      if (!conn.valid()) continue;
      if (target == HelloTarget::kEgressRelay) {
        HandToRelay(std::move(conn));
      } else {
        Dispatch(conn.release());
      }
    }
    gate_->Expire(HelloGate::MonotonicSeconds());
  }

  // A connection whose hello asked for the egress relay, sent to it (the gate accepts such a
  // hello only when relay_feed_ exists). Queued in the socketpair while a killed relay is being
  // replaced; dropped (the host sees it close) when the queue is full.
  void HandToRelay(UniqueFd conn) {
    const char byte = 'r';
    (void)sys::SendWithFd(relay_feed_, &byte, 1, conn.get());
  }

  void Accept() {
    int conn = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) return;
    if (gate_) {
      // A TCP peer in the pod's own network is one of its commands: they may read the token
      // (same uid), so they are refused by address, before any hello.
      if (IsPeerInOurNetwork(conn)) {
        LogRefusedPeer(-1);
        ::close(conn);
        return;
      }
      TuneAgentTcpConnection(conn);
      gate_->Add(UniqueFd(conn), HelloGate::MonotonicSeconds());
      return;
    }
    pid_t peer = PeerPidInOurNamespace(conn);
    if (!IsHostPeer(peer)) {
      LogRefusedPeer(peer);
      ::close(conn);
      return;
    }
    Dispatch(conn);
  }

  // A connection the host made, to a handler: the warm one when it is ready, else a new fork.
  void Dispatch(int conn) {
    std::vector<pid_t> others;
    for (const auto& [handler, unused] : handlers_) others.push_back(handler);
    pid_t pid = -1;
    UniqueFd control;
    // Only a handler that is done preparing: one still starting would make the client wait
    // for all of its start, where a fresh fork waits for less.
    if (warm_.alive() && warm_.prepared) {
      pid_t warm_pid = warm_.pid;
      if (HandOver(warm_, conn, others)) {
        pid = warm_pid;
        control = std::move(warm_.control);
      }
      warm_ = {};  // spent, or dead (its reap is the loop's)
    }
    if (pid < 0) pid = ForkHandler(conn, std::move(others), &control);
    bool keep = pid > 0 && context_.exec.mode == AgentMode::kContainer;
    if (pid > 0) {
      if (control.valid()) ::fcntl(control.get(), F_SETFL, O_NONBLOCK);
      handlers_[pid] = {keep ? conn : -1, std::move(control)};
    }
    if (!keep) ::close(conn);
  }

  pid_t ForkHandler(int conn, std::vector<pid_t> others, UniqueFd* control) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return -1;
    pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<int> agent_fds = AgentFds();
      agent_fds.push_back(pair[0]);
      EnterHandlerProcess(agent_fds);
      context_.handlers = std::move(others);
      context_.control_fd = pair[1];
      ServeConnection(conn, context_);
      ::_exit(0);
    }
    ::close(pair[1]);
    if (pid < 0) {
      ::close(pair[0]);
      return -1;
    }
    control->reset(pair[0]);
    return pid;
  }

  // What a forked handler closes first: PID 1's own fds.
  std::vector<int> AgentFds() const {
    std::vector<int> fds = {listen_fd_, sig_fd_};
    if (relay_fd_ >= 0) fds.push_back(relay_fd_);
    if (relay_feed_ >= 0) fds.push_back(relay_feed_);
    for (const auto& [pid, slot] : handlers_) {
      if (slot.conn >= 0) fds.push_back(slot.conn);
      if (slot.control.valid()) fds.push_back(slot.control.get());
    }
    if (warm_.control.valid()) fds.push_back(warm_.control.get());
    if (gate_) {
      for (int fd : gate_->fds()) fds.push_back(fd);
    }
    if (catcher_) {
      for (int fd : catcher_->fds()) fds.push_back(fd);
    }
    return fds;
  }

  // A handler's message: a question about the background processes, or a keeper's report.
  void OnControl(pid_t pid) {
    HandlerSlot& slot = handlers_[pid];
    nlohmann::json message;
    UniqueFd fd;
    if (!ReceiveControl(slot.control.get(), &message, &fd)) {
      // Done (it exits), or EAGAIN: a handler never writes half a message, so only the former
      // stays readable; stop listening to it either way until it is reaped.
      if (errno != EAGAIN) slot.control.reset();
      return;
    }
    if (message.value("op", "") == "lookups") {
      (void)SendControl(slot.control.get(), AnswerLookups(catcher_.get(), message));
      return;
    }
    pid_t release = -1;
    auto answer = processes_.OnMessage(pid, slot.control.get(), message, std::move(fd), &release);
    if (processes_.IsKeeper(pid) && slot.conn >= 0) {
      // A keeper answers its own client; a killed one's client sees the connection close.
      ::close(slot.conn);
      slot.conn = -1;
    }
    if (answer) (void)SendControl(slot.control.get(), *answer);
    if (release > 0) {
      auto it = handlers_.find(release);
      if (it != handlers_.end()) it->second.control.reset();  // its hang-up ends the keeper
    }
  }

  int listen_fd_;
  int sig_fd_;
  AgentContext context_;
  std::map<pid_t, HandlerSlot> handlers_;
  WarmHandler warm_;  // the next connection's handler, already forked
  ProcessRouter processes_;
  std::unique_ptr<DnsCatcher> catcher_;
  std::unique_ptr<HelloGate> gate_;  // TCP only: the connections waiting for their hello
  int relay_fd_;                     // the egress relay's listening socket, -1: none
  int relay_feed_;                   // TCP: PID 1's end of the relay's socketpair, -1: none
  pid_t relay_pid_ = -1;
  time_t last_relay_fork_ = 0;
};

}  // namespace

int RunAgent(const AgentOptions& options) {
  ::signal(SIGPIPE, SIG_IGN);
  auto sockets = SetUp(options);
  if (!sockets.ok()) {
    std::fprintf(stderr, "agentbox-agent: %s\n", sockets.status().message().c_str());
    return 1;
  }
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, nullptr);
  int sig_fd = ::signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  int workspace_fd = ::open(kWorkspaceDir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (sig_fd < 0 || workspace_fd < 0) {
    std::fprintf(stderr, "agentbox-agent: setup: %s\n", std::strerror(errno));
    return 1;
  }
  Agent(options, std::move(*sockets), sig_fd, workspace_fd).Serve();
}

}  // namespace agentbox
