// The agent's exec, common to both modes: the plan, the supervision (output frames, deadline,
// disk watch, client hang-up) and the result. Starting and killing the process tree is the
// launcher's job (agent/exec_launcher.h).
#include "agent/exec_op.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <optional>

#include "agent/connection.h"
#include "agent/exec_launcher.h"
#include "policy/sandbox_env.h"
#include "proc/exec_go.h"
#include "proc/outcome.h"
#include "proto/agent_protocol.h"
#include "spec/sandbox_spec.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;

StatusOr<ExecPipes> MakePipes(const ExecSetup& setup) {
  ExecPipes p;
  for (Pipe* pipe : {&p.out, &p.err, &p.status, &p.error}) {
    AB_ASSIGN_OR_RETURN(*pipe, MakePipe());
  }
  if (setup.disk_watch) {
    AB_ASSIGN_OR_RETURN(p.watch, MakeWatchChannel(kWorkspaceDir));
  }
  return p;
}

// What the request decides: the command, its environment, directory and stdin.
void FillRequestFields(const ExecRequest& req, int stdin_fd, CommandStrings& storage,
                       ChildPlan& plan) {
  plan.command.cwd = req.cwd;
  storage.argv = req.argv;
  storage.env = BuildSandboxEnvironment(req.env);
  PointAtCommand(storage, plan.command);
  plan.command.stdin_fd = stdin_fd;
}

// What every exec shares: identity, filter, and the pipes back to this handler.
void FillCommonFields(const ExecPipes& pipes, ChildPlan& plan) {
  plan.command.uid = kSandboxUid;
  plan.command.gid = kSandboxGid;
  plan.command.seccomp = &DefaultSeccompProgram();
  plan.error_write = pipes.error.write.get();
  plan.command.status_write = pipes.status.write.get();
  plan.command.stdout_write = pipes.out.write.get();
  plan.command.stderr_write = pipes.err.write.get();
  plan.command.watch_channel = pipes.watch.child.get();
}

StatusOr<StartedExec> StartExec(const ExecRequest& req, int stdin_fd, const ExecSetup& setup) {
  AB_ASSIGN_OR_RETURN(ExecPipes pipes, MakePipes(setup));
  StartedExec exec{MakeExecLauncher(setup.mode), {}};
  CommandStrings storage;
  ChildPlan plan;
  FillRequestFields(req, stdin_fd, storage, plan);
  FillCommonFields(pipes, plan);
  exec.launcher->AdjustPlan(plan);
  AB_ASSIGN_OR_RETURN(exec.box, exec.launcher->Start(plan, pipes));
  return exec;
}

// Hands the request to a prepared init. Null when it is gone (in a container a command can
// kill it: same uid); then it is reaped here, and the caller starts one the usual way.
std::optional<StartedExec> GoPrepared(std::unique_ptr<PreparedExec> prepared,
                                      const ExecRequest& req, int stdin_fd) {
  CommandStrings storage;
  ChildPlan plan;
  FillRequestFields(req, stdin_fd, storage, plan);
  StartedExec& started = prepared->started;
  bool sent = SendGo(prepared->go.get(), plan.command).ok();
  prepared->go.reset();
  if (!sent) {
    started.launcher->Reap(started.box);
    return std::nullopt;
  }
  return std::move(started);
}

ExecResult Supervised(int conn_fd, const ExecRequest& req, ExecLauncher& launcher,
                      SupervisedSandbox& box, Clock::time_point start) {
  OutputCapture output(req.output_limit, [conn_fd](OutputStream s, std::string_view data) {
    for (size_t off = 0; off < data.size(); off += kMaxFramePayload) {
      (void)WriteFrame(conn_fd,
                       s == OutputStream::kStdout ? FrameType::kStdout : FrameType::kStderr,
                       data.substr(off, kMaxFramePayload));
    }
  });
  SupervisionLimits limits;
  limits.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(req.timeout_seconds));
  limits.kill_all = [&launcher, &box] { launcher.KillAll(box); };
  limits.cancel_fd = conn_fd;
  limits.finish_on_report = true;
  SupervisionOutcome outcome = Supervise(box, output, limits);
  launcher.Finish(outcome);
  return ResultOfSupervision(outcome, nullptr, output);
}

void Reply(int conn_fd, ExecResult result, Clock::time_point start) {
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  ::prctl(PR_SET_NAME, kExecDoneName, 0, 0, 0);  // no longer counted by ping's active_execs
  (void)WriteFrame(conn_fd, FrameType::kResponse, ExecResultToWire(result));
}

}  // namespace

std::unique_ptr<PreparedExec> PrepareExec(const ExecSetup& setup) {
  auto pipes = MakePipes(setup);
  int pair[2];
  if (!pipes.ok() || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return nullptr;
  }
  UniqueFd go(pair[0]), init_end(pair[1]);
  auto prepared = std::make_unique<PreparedExec>();
  StartedExec& started = prepared->started;
  started.launcher = MakeExecLauncher(setup.mode);
  ChildPlan plan;
  FillCommonFields(*pipes, plan);
  started.launcher->AdjustPlan(plan);
  plan.command.go_fd = init_end.get();
  auto box = started.launcher->Start(plan, *pipes);
  if (!box.ok()) return nullptr;
  started.box = std::move(*box);
  prepared->go = std::move(go);
  return prepared;
}

Status HandleExec(int conn_fd, const ExecRequest& req, int stdin_fd, const ExecSetup& setup,
                  std::unique_ptr<PreparedExec> prepared) {
  auto start = Clock::now();
  UniqueFd null_fd(stdin_fd >= 0 ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int command_stdin = stdin_fd >= 0 ? stdin_fd : null_fd.get();
  std::optional<StartedExec> exec;
  if (prepared) exec = GoPrepared(std::move(prepared), req, command_stdin);
  if (!exec) {
    auto started = StartExec(req, command_stdin, setup);
    if (!started.ok()) return started.status();
    exec = std::move(*started);
  }
  Reply(conn_fd, Supervised(conn_fd, req, *exec->launcher, exec->box, start), start);
  exec->launcher->Reap(exec->box);
  return OkStatus();
}

}  // namespace agentbox
