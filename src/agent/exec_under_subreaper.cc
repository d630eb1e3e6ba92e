// Container execs (a box agentbox did not build): the agent has no capabilities, so no PID
// namespace per exec. Two subreapers hold the command's tree instead:
//
//   handler (subreaper)            supervises; on timeout, hang-up or disk limit kills its init,
//     └── exec init (subreaper)    inherits the init's orphans and kills them all
//           └── command ...        orphans of the command's tree are reparented to the init,
//                                  which reaps them, and kills what is left when the command exits
//
// Same uid as the command, so a command can kill its own init or handler; then the orphans go to
// the next subreaper up, and past the handler to the agent (PID 1), which kills every child that
// is not one of its handlers (agent_server.cc). Nothing of an exec outlives it either way.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

#include "agent/exec_launcher.h"
#include "proc/child_order.h"
#include "proc/process_tree.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

class SubreaperLauncher : public ExecLauncher {
 public:
  void AdjustPlan(ChildPlan& plan) const override {
    plan.box.mounts = nullptr;              // the box's mounts are docker's: none per exec
    plan.command.change_identity = false;   // already uid/gid 1000, without the privilege to switch
    plan.command.init_is_subreaper = true;  // no PID namespace: the init kills the rest itself
    plan.command.rlimit_nofile = 0;         // docker's --ulimit (or its default) stays
  }

  StatusOr<SupervisedSandbox> Start(ChildPlan& plan, ExecPipes& pipes) override {
    if (!BecomeSubreaper()) return ErrnoStatus("become the exec's subreaper");
    pid_t pid = ::fork();
    if (pid < 0) return ErrnoStatus("fork the exec's init");
    if (pid == 0) RunSubreaperExecChild(plan);
    // pidfd_open after fork has no pid-reuse race: the init is our unreaped child. gVisor
    // (runsc) has no pidfd_open: then the supervisor goes by the pipes alone (the status pipe's
    // EOF is the init's exit), and kills through the pid, still our unreaped child.
    UniqueFd pidfd(sys::PidfdOpen(pid));
    if (!pidfd.valid() && errno != ENOSYS) {
      Status st = ErrnoStatus("pidfd_open the exec's init");
      ::kill(pid, SIGKILL);
      KillAndReapChildren();
      return st;
    }
    return SupervisedFromPipes(pid, std::move(pidfd), pipes);
  }

  // The init first, so its orphans come to us; then every child, until none is left. Reaps the
  // init too: the supervisor's wait4 then finds nothing, and Finish measures instead.
  void KillAll(SupervisedSandbox& box) override {
    if (box.pidfd.valid()) {
      sys::PidfdSendSignal(box.pidfd.get(), SIGKILL);
    } else {
      ::kill(box.pid, SIGKILL);
    }
    KillAndReapChildren();
  }

  // An init that reported has killed and reaped its tree, and measured it. One a command
  // killed left orphans, which came to us: kill them, and measure everything this handler
  // reaped (the init, and through it every process of the tree).
  void Finish(SupervisionOutcome& outcome) override {
    if (outcome.command_status) return;
    KillAndReapChildren();
    struct rusage usage = {};
    if (::getrusage(RUSAGE_CHILDREN, &usage) != 0) return;
    outcome.cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
                     (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
    outcome.max_rss_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;
  }

  void Reap(SupervisedSandbox& box) override { KillAll(box); }
};

}  // namespace

std::unique_ptr<ExecLauncher> MakeSubreaperLauncher() {
  return std::make_unique<SubreaperLauncher>();
}

}  // namespace agentbox
