// Each exec gets its own PID namespace, so killing its init kills exactly its process tree
// (setsid, double fork, SIGTERM-ignoring and stopped processes included) and leaves the
// sandbox and the other execs alone; and its own mount namespace, so its /proc shows its own
// processes only.
#include "agent/exec_op.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>

#include "agent/connection.h"
#include "core/agent_protocol.h"
#include "native/child_plan.h"
#include "native/outcome.h"
#include "native/supervisor.h"
#include "native/workspace.h"
#include "policy/sandbox_env.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;

// The exec's own /proc, masked like the sandbox's (policy/mount_plan.cc AddProc).
const MountPlan& ExecProcPlan() {
  static const MountPlan plan = [] {
    MountPlan p;
    p.ops.push_back({MountKind::kProc, "", "/proc", "", 0, 0});
    p.ops.push_back({MountKind::kBindSelfReadOnly, "", "/proc/sys", "", 0, 0});
    p.ops.push_back({MountKind::kMaskFile, "", "/proc/sysrq-trigger", "", 0, 0});
    p.ops.push_back({MountKind::kMaskFile, "", "/proc/kcore", "", 0, 0});
    return p;
  }();
  return plan;
}

// An unprivileged creator wrote "deny" to /proc/PID/setgroups before mapping the sandbox's ids.
bool SetgroupsAllowed() {
  static const bool allowed = [] {
    char buf[16] = {};
    int fd = ::open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? ::read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0) ::close(fd);
    return n > 0 && std::string_view(buf, static_cast<size_t>(n)).rfind("allow", 0) == 0;
  }();
  return allowed;
}

struct ExecPipes {
  Pipe out, err, status, error;
};

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
  plan.mounts = &ExecProcPlan();
  for (const MountOp& op : plan.mounts->ops) {
    plan.full_targets.push_back(op.target);
    plan.tmpfs_options.push_back("");
  }
  plan.source_trees.assign(plan.mounts->ops.size(), -1);
  plan.source_is_dir.assign(plan.mounts->ops.size(), 1);
  plan.dev_null_path = "/dev/null";
  plan.can_setgroups = SetgroupsAllowed();
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

[[noreturn]] void RunExecInit(ChildPlan& plan) {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    ReportChildError(plan, ChildStep::kMakePrivate, errno, "/");
    ::_exit(125);
  }
  if (!ExecuteMountPlan(plan)) ::_exit(125);
  ForkCommandAndBecomeInit(plan);
}

StatusOr<SupervisedSandbox> StartExec(ChildPlan& plan, ExecPipes& pipes) {
  int pidfd = -1;
  struct clone_args args = {};
  args.flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_PIDFD;
  args.pidfd = reinterpret_cast<uint64_t>(&pidfd);
  args.exit_signal = SIGCHLD;
  long pid = sys::Clone3(&args);
  if (pid < 0) return ErrnoStatus("clone the exec's namespaces");
  if (pid == 0) RunExecInit(plan);
  SupervisedSandbox box;
  box.pid = static_cast<pid_t>(pid);
  box.pidfd.reset(pidfd);
  box.stdout_read = std::move(pipes.out.read);
  box.stderr_read = std::move(pipes.err.read);
  box.status_read = std::move(pipes.status.read);
  box.error_read = std::move(pipes.error.read);
  pipes = ExecPipes{};  // the child's ends close here: EOF follows the command's exit
  return box;
}

ExecResult Supervised(int conn_fd, const ExecRequest& req, SupervisedSandbox& box,
                      Clock::time_point start) {
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
  limits.kill_all = [&box] { sys::PidfdSendSignal(box.pidfd.get(), SIGKILL); };
  limits.cancel_fd = conn_fd;
  SupervisionOutcome outcome = Supervise(box, output, limits);
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

}  // namespace

void HandleExec(int conn_fd, const ExecRequest& req, int stdin_fd) {
  auto start = Clock::now();
  ExecResult result;
  UniqueFd null_fd(stdin_fd >= 0 ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC));
  auto pipes = MakePipes();
  if (!pipes.ok()) {
    result = ErrorResult(pipes.status().message());
  } else {
    PlanStorage storage;
    ChildPlan plan;
    FillPlan(req, *pipes, stdin_fd >= 0 ? stdin_fd : null_fd.get(), storage, plan);
    auto box = StartExec(plan, *pipes);
    result = box.ok() ? Supervised(conn_fd, req, *box, start) : ErrorResult(box.status().message());
  }
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  ::prctl(PR_SET_NAME, kExecDoneName, 0, 0, 0);  // no longer counted by ping's active_execs
  (void)WriteFrame(conn_fd, FrameType::kResponse, ExecResultToWire(result));
}

}  // namespace agentbox
