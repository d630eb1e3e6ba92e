// How one exec's processes are started and killed: one implementation per AgentMode.
//
// Both start an exec init that forks the command and reports its wait status
// (proc/command_process.cc); they differ in what holds the command's process tree together:
//   native     a fresh PID namespace: killing its init makes the kernel kill the whole tree
//              (exec_in_namespaces.cc);
//   container  subreapers (no capabilities, so no namespaces): the handler and the exec init set
//              PR_SET_CHILD_SUBREAPER, so orphans come back to them, and they kill their children
//              round after round until none is left (exec_under_subreaper.cc).
#pragma once

#include <memory>

#include "agent/agent_options.h"
#include "base/status.h"
#include "proc/child_plan.h"
#include "proc/seccomp_listener.h"
#include "proc/supervisor.h"
#include "proto/exec_wire.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct ExecPipes {
  Pipe out, err, status, error;
  ListenerChannel listener;  // the seccomp listener's channel (proc/seccomp_listener.h)
};

class ExecLauncher {
 public:
  virtual ~ExecLauncher() = default;
  // The plan's mode-specific fields: mounts, identity, subreaper, rlimits.
  virtual void AdjustPlan(ChildPlan& plan) const = 0;
  // Starts the exec init, which forks the command. The child's ends of `pipes` are closed here,
  // so EOF on the output pipes follows the exit of the last process holding them.
  virtual StatusOr<SupervisedSandbox> Start(ChildPlan& plan, ExecPipes& pipes) = 0;
  // SIGKILLs every process of the exec, its init included (timeout, client gone).
  virtual void KillAll(SupervisedSandbox& box) = 0;
  // After supervision, before the reply: when the init did not report (it was killed), kills
  // whatever may be left of the tree and measures what the mode measures its way.
  virtual void Finish(SupervisionOutcome& outcome) = 0;
  // After the reply: kills and reaps the init if it still runs. An init that reported has killed
  // and reaped its tree already; its own exit (a namespace teardown) is off the client's clock.
  virtual void Reap(SupervisedSandbox& box) = 0;
};

std::unique_ptr<ExecLauncher> MakeExecLauncher(AgentMode mode);
std::unique_ptr<ExecLauncher> MakeNamespaceLauncher();  // kNative
std::unique_ptr<ExecLauncher> MakeSubreaperLauncher();  // kContainer

// Shared by the launchers: the parent's ends of `pipes` go to the box, the child's ends close.
SupervisedSandbox SupervisedFromPipes(pid_t init_pid, UniqueFd init_pidfd, ExecPipes& pipes);

}  // namespace agentbox
