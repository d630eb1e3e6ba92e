#include "agent/warm_handler.h"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/exec_wire.h"

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
  char cmsg_buf[CMSG_SPACE(sizeof(int))] = {};
  struct iovec iov = {pids.data(), pids.size() * sizeof(pid_t)};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = cmsg_buf;
  msg.msg_controllen = sizeof(cmsg_buf);
  ssize_t n;
  do n = ::recvmsg(control, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  struct cmsghdr* cmsg = n >= 0 ? CMSG_FIRSTHDR(&msg) : nullptr;
  if (!cmsg || cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS) return false;
  std::memcpy(conn_fd, CMSG_DATA(cmsg), sizeof(int));
  pids.resize(static_cast<size_t>(n) / sizeof(pid_t));
  *handlers = std::move(pids);
  return true;
}

[[noreturn]] void ServeHandedOver(int control, AgentContext context) {
  WarmUp();
  // The next exec's init too: its namespaces, /proc and hardening cost more than the fork.
  std::unique_ptr<PreparedExec> prepared = PrepareExec(context.mode);
  const char ready = 'r';
  if (::send(control, &ready, 1, MSG_NOSIGNAL) != 1) ::_exit(0);
  int conn = -1;
  if (!ReceiveConnection(control, &conn, &context.handlers)) ::_exit(0);  // the agent is gone
  ::close(control);
  ServeConnection(conn, context, std::move(prepared));
  ::_exit(0);
}

}  // namespace

WarmHandler ForkWarmHandler(const AgentContext& context, std::initializer_list<int> agent_fds) {
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
  struct iovec iov = {count ? const_cast<pid_t*>(other_handlers.data()) : const_cast<pid_t*>(&none),
                      (count ? count : 1) * sizeof(pid_t)};
  char cmsg_buf[CMSG_SPACE(sizeof(int))] = {};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = cmsg_buf;
  msg.msg_controllen = sizeof(cmsg_buf);
  struct cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &conn_fd, sizeof(int));
  ssize_t n;
  do n = ::sendmsg(handler.control.get(), &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  handler.control.reset();
  return n == static_cast<ssize_t>(iov.iov_len);
}

}  // namespace agentbox
