#include "agent/warm_handler.h"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "proto/exec_wire.h"
#include "sys/fd_passing.h"

namespace agentbox {
namespace {

// ping's active_execs counts exec handlers among these; more than this many at once is not a
// number anyone needs exactly, only "busy".
constexpr size_t kMaxListedHandlers = 1024;

// What a real request touches first (the allocator's arenas, the JSON parser's code and data),
// touched now, so the copy-on-write faults happen before the client waits.
void WarmUp() {
  auto request = ExecRequestFromWire(
      R"({"op":"exec","argv":["/bin/true"],"cwd":"/workspace","env":[["A","b"]],"timeout":60})");
  (void)request;
}

bool ReceiveConnection(int control, int* conn_fd, std::vector<pid_t>* handlers) {
  std::vector<pid_t> pids(kMaxListedHandlers);
  ssize_t n = sys::ReceiveWithFd(control, pids.data(), pids.size() * sizeof(pid_t), conn_fd);
  if (n < 0 || *conn_fd < 0) return false;
  pids.resize(static_cast<size_t>(n) / sizeof(pid_t));
  *handlers = std::move(pids);
  return true;
}

[[noreturn]] void ServeHandedOver(int control, AgentContext context) {
  WarmUp();
  // The next exec's init too: its namespaces, /proc and hardening cost more than the fork.
  std::unique_ptr<PreparedExec> prepared = PrepareExec(context.exec);
  const char ready = 'r';
  if (::send(control, &ready, 1, MSG_NOSIGNAL) != 1) ::_exit(0);
  int conn = -1;
  if (!ReceiveConnection(control, &conn, &context.handlers)) ::_exit(0);  // the agent is gone
  context.control_fd = control;  // from now on the handler's control channel to PID 1
  ServeConnection(conn, context, std::move(prepared));
  ::_exit(0);
}

}  // namespace

WarmHandler ForkWarmHandler(const AgentContext& context, const std::vector<int>& agent_fds) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    EnterHandlerProcess(agent_fds);
    ::close(pair[0]);
    ServeHandedOver(pair[1], context);
  }
  ::close(pair[1]);
  WarmHandler handler;
  if (pid < 0) {
    ::close(pair[0]);
    return handler;
  }
  handler.pid = pid;
  handler.control.reset(pair[0]);
  return handler;
}

void AwaitWarmReady(WarmHandler& handler) {
  char byte;
  ssize_t n = ::recv(handler.control.get(), &byte, 1, MSG_DONTWAIT);
  if (n == 1) {
    handler.prepared = true;
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    handler.control.reset();  // hung up: it died before it was ready
  }
}

bool HandOver(WarmHandler& handler, int conn_fd, const std::vector<pid_t>& other_handlers) {
  size_t count = std::min(other_handlers.size(), kMaxListedHandlers);
  // An empty payload would read as "no message" on some kernels' SEQPACKET: send one pid at
  // least (our own pid 1 is never an exec handler, so it counts for nothing).
  const pid_t none = 1;
  const pid_t* pids = count ? other_handlers.data() : &none;
  size_t size = (count ? count : 1) * sizeof(pid_t);
  ssize_t n = sys::SendWithFd(handler.control.get(), pids, size, conn_fd);
  if (n != static_cast<ssize_t>(size)) handler.control.reset();
  return n == static_cast<ssize_t>(size);
}

}  // namespace agentbox
