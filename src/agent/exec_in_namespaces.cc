// Native execs: each gets its own PID namespace, so killing its init kills exactly its process
// tree (setsid, double fork, SIGTERM-ignoring and stopped processes included) and leaves the
// sandbox and the other execs alone; and its own mount namespace, so its /proc shows its own
// processes only. The agent is root of the sandbox's user namespace: it may create both.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "agent/exec_launcher.h"
#include "proc/child_order.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

// The exec's own /proc, masked like the sandbox's: the same list (policy/mount_plan.h).
const MountPlan& ExecProcPlan() {
  static const MountPlan plan = [] {
    MountPlan p;
    p.ops = ProcMounts();
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

class NamespaceLauncher : public ExecLauncher {
 public:
  void AdjustPlan(ChildPlan& plan) const override {
    BoxSetup& box = plan.box;
    box.mounts = &ExecProcPlan();
    for (const MountOp& op : box.mounts->ops) {
      box.full_targets.push_back(op.target);
      box.tmpfs_options.push_back("");
    }
    box.source_trees.assign(box.mounts->ops.size(), -1);
    box.source_is_dir.assign(box.mounts->ops.size(), 1);
    box.dev_null_path = "/dev/null";
    plan.can_setgroups = SetgroupsAllowed();
  }

  StatusOr<SupervisedSandbox> Start(ChildPlan& plan, ExecPipes& pipes) override {
    int pidfd = -1;
    struct clone_args args = {};
    args.flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_PIDFD;
    args.pidfd = reinterpret_cast<uint64_t>(&pidfd);
    args.exit_signal = SIGCHLD;
    long pid = sys::Clone3(&args);
    if (pid < 0) return ErrnoStatus("clone the exec's namespaces");
    if (pid == 0) RunNamespaceExecChild(plan);
    return SupervisedFromPipes(static_cast<pid_t>(pid), UniqueFd(pidfd), pipes);
  }

  // The init is PID 1 of the exec's namespace: the kernel takes the rest with it.
  void KillAll(SupervisedSandbox& box) override { sys::PidfdSendSignal(box.pidfd.get(), SIGKILL); }

  // cpu_ms and max_rss come from the init's report, or its wait4 if it was killed.
  void Finish(SupervisionOutcome&) override {}

  void Reap(SupervisedSandbox& box) override {
    KillAll(box);
    while (::waitpid(box.pid, nullptr, __WALL) < 0 && errno == EINTR) {
    }
  }
};

}  // namespace

std::unique_ptr<ExecLauncher> MakeNamespaceLauncher() {
  return std::make_unique<NamespaceLauncher>();
}

}  // namespace agentbox
