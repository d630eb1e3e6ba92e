// The agent's exec, common to both modes: the plan, the supervision (output frames, deadline,
// disk watch, client hang-up) and the result. Starting and killing the process tree is the
// launcher's job (agent/exec_launcher.h).
#include "agent/exec_op.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>

#include "agent/connection.h"
#include "agent/exec_launcher.h"
#include "core/agent_protocol.h"
#include "native/outcome.h"
#include "native/workspace.h"
#include "policy/sandbox_env.h"
#include "spec/sandbox_spec.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;

StatusOr<ExecPipes> MakePipes() {
  ExecPipes p;
  for (Pipe* pipe : {&p.out, &p.err, &p.status, &p.error}) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
    pipe->read.reset(fds[0]);
    pipe->write.reset(fds[1]);
  }
  return p;
}

struct PlanStorage {
  std::vector<std::string> argv, env;
};

void FillPlan(const ExecRequest& req, const ExecPipes& pipes, int stdin_fd, PlanStorage& storage,
              ChildPlan& plan) {
  plan.uid = kSandboxUid;
  plan.gid = kSandboxGid;
  plan.cwd = req.cwd;
  storage.argv = req.argv;
  storage.env = BuildSandboxEnvironment(req.env);
  for (auto& a : storage.argv) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);
  for (auto& e : storage.env) plan.envp.push_back(e.data());
  plan.envp.push_back(nullptr);
  plan.seccomp = &DefaultSeccompProgram();
  plan.error_write = pipes.error.write.get();
  plan.status_write = pipes.status.write.get();
  plan.stdin_fd = stdin_fd;
  plan.stdout_write = pipes.out.write.get();
  plan.stderr_write = pipes.err.write.get();
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
  uint64_t baseline = req.disk_limit ? DiskUsageBytes(kWorkspaceDir) : 0;
  if (req.disk_limit) {
    limits.disk_exceeded = [&] {
      return DiskUsageBytes(kWorkspaceDir) > baseline + req.disk_limit;
    };
  }
  limits.kill_all = [&launcher, &box] { launcher.KillAll(box); };
  limits.cancel_fd = conn_fd;
  limits.finish_on_report = true;
  SupervisionOutcome outcome = Supervise(box, output, limits);
  launcher.Finish(outcome);
  ExecResult result;
  if (outcome.setup_error) {
    FillSetupErrorResult(*outcome.setup_error, result);
    if (!result.stderr_data.empty()) output.Append(OutputStream::kStderr, result.stderr_data);
  } else {
    FillOutcomeResult(outcome, CgroupStats{}, result);
  }
  if (req.disk_limit && DiskUsageBytes(kWorkspaceDir) >= baseline + req.disk_limit) {
    result.AddLimitHit(kLimitDisk);  // a write refused at the limit leaves the workspace full
  }
  result.cpu_ms = outcome.cpu_ms;
  result.peak_memory_bytes = outcome.max_rss_bytes;
  result.stdout_truncated = output.truncated(OutputStream::kStdout);
  result.stderr_truncated = output.truncated(OutputStream::kStderr);
  if (result.stdout_truncated || result.stderr_truncated) result.AddLimitHit(kLimitOutput);
  return result;
}

void Reply(int conn_fd, ExecResult result, Clock::time_point start) {
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  ::prctl(PR_SET_NAME, kExecDoneName, 0, 0, 0);  // no longer counted by ping's active_execs
  (void)WriteFrame(conn_fd, FrameType::kResponse, ExecResultToWire(result));
}

}  // namespace

void HandleExec(int conn_fd, const ExecRequest& req, int stdin_fd, AgentMode mode) {
  auto start = Clock::now();
  UniqueFd null_fd(stdin_fd >= 0 ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC));
  auto pipes = MakePipes();
  if (!pipes.ok()) return Reply(conn_fd, ErrorResult(pipes.status().message()), start);
  std::unique_ptr<ExecLauncher> launcher = MakeExecLauncher(mode);
  PlanStorage storage;
  ChildPlan plan;
  FillPlan(req, *pipes, stdin_fd >= 0 ? stdin_fd : null_fd.get(), storage, plan);
  launcher->AdjustPlan(req, plan);
  auto box = launcher->Start(plan, *pipes);
  if (!box.ok()) return Reply(conn_fd, ErrorResult(box.status().message()), start);
  Reply(conn_fd, Supervised(conn_fd, req, *launcher, *box, start), start);
  launcher->Reap(*box);
}

}  // namespace agentbox
