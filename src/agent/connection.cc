#include "agent/connection.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>

#include "agent/agent_user.h"
#include "agent/exec_op.h"
#include "agent/file_ops.h"
#include "agent/process_requests.h"
#include "proc/cgroup_stats_wire.h"
#include "proc/own_cgroup.h"
#include "proto/agent_protocol.h"
#include "proto/exec_wire.h"
#include "spec/sandbox_spec.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

void Reply(int conn_fd, const nlohmann::json& body) {
  (void)WriteFrame(conn_fd, FrameType::kResponse, body.dump());
}

void ReplyError(int conn_fd, const Status& status) {
  Reply(conn_fd,
        {{"ok", false}, {"code", StatusCodeName(status.code())}, {"error", status.message()}});
}

int CountExecHandlers(const std::vector<pid_t>& handlers) {
  int count = 0;
  for (pid_t pid : handlers) {
    char path[64], comm[32] = {};
    std::snprintf(path, sizeof(path), "/proc/%d/comm", pid);
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = ::read(fd, comm, sizeof(comm) - 1);
    ::close(fd);
    if (n > 0 && std::string_view(comm, static_cast<size_t>(n)).rfind(kExecHandlerName, 0) == 0) {
      ++count;
    }
  }
  return count;
}

// The counters of the cgroup this agent (PID 1, so the whole box) lives in: what the host
// cannot read itself when the box is a pod on another machine (kubernetes backend).
void ReplyBoxStats(int conn_fd) {
  auto stats = ReadOwnCgroupStats();
  if (!stats.ok()) return ReplyError(conn_fd, stats.status());
  (void)WriteFrame(conn_fd, FrameType::kResponse, CgroupStatsToWire(*stats));
}

}  // namespace

void EnterHandlerProcess(const std::vector<int>& agent_fds) {
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_UNBLOCK, &chld, nullptr);
  for (int fd : agent_fds) ::close(fd);
}

void ServeConnection(int conn_fd, const AgentContext& context,
                     std::unique_ptr<PreparedExec> prepared) {
  int passed_fd = -1;
  auto frame = ReadFrame(conn_fd, &passed_fd);
  UniqueFd stdin_fd(passed_fd);
  if (!frame.ok()) return;
  if (frame->type != FrameType::kRequest) {
    ReplyError(conn_fd, InvalidArgument("expected a request frame"));
    return;
  }
  auto request = nlohmann::json::parse(frame->payload, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded() || !request.is_object() || !request.contains("op") ||
      !request["op"].is_string()) {
    ReplyError(conn_fd, InvalidArgument("malformed request: need a JSON object with \"op\""));
    return;
  }
  std::string op = request["op"].get<std::string>();
  if (op == "ping") {
    Reply(conn_fd, {{"ok", true}, {"active_execs", CountExecHandlers(context.handlers)}});
  } else if (op == kBoxStatsOp) {
    ReplyBoxStats(conn_fd);
  } else if (op == "exec") {
    auto exec = ExecRequestFromWire(frame->payload);
    if (!exec.ok()) return ReplyError(conn_fd, exec.status());
    if (exec->detach) {
      Status started =
          HandleDetachedExec(conn_fd, *exec, context.exec, context.control_fd, std::move(prepared));
      return ReplyError(conn_fd, started);
    }
    ::prctl(PR_SET_NAME, kExecHandlerName, 0, 0, 0);
    Status started = HandleExec(conn_fd, *exec, exec->pass_stdin ? stdin_fd.get() : -1,
                                context.exec, context.control_fd, std::move(prepared));
    if (!started.ok()) ReplyError(conn_fd, started);
  } else if (IsProcessOp(op)) {
    HandleProcessRequest(conn_fd, request, context);
  } else if (IsFileOp(op)) {
    // File operations act as the sandbox user: same permission checks as its commands, and
    // files land owned by it (the fs capabilities go with fsuid 0). A container agent already
    // is that user.
    if (context.exec.mode == AgentMode::kNative) {
      ::setfsgid(AgentUser().gid);
      ::setfsuid(AgentUser().uid);
    }
    // A write past RLIMIT_FSIZE (the disk limit) must fail with EFBIG and be answered
    // (resource_exhausted), not kill this handler with SIGXFSZ and leave the client a broken
    // connection (which serve answered 500). This handler runs no command: nothing inherits it.
    ::signal(SIGXFSZ, SIG_IGN);
    HandleFileRequest(conn_fd, request, context.workspace_fd);
  } else {
    ReplyError(conn_fd, InvalidArgument("unknown op \"" + op + "\""));
  }
}

}  // namespace agentbox
