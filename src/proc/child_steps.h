// The steps of the cloned child, one function each. Their ORDER is child_order.cc's alone: read
// it there, with the reason for each position. Child side, all of them: no allocation, no
// logging, no exceptions, no locks. A step returns false with errno set; the order reports it.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>

#include "proc/child_plan.h"

namespace agentbox {

// --- The box (box_steps.cc).
bool WaitForParent(const ChildPlan& plan);  // the parent's one byte: maps and cgroup are in place
bool BecomeNamespaceRoot(const ChildPlan& plan);
bool MakeMountsPrivate();                // MS_REC | MS_PRIVATE on "/"
bool MountNewRootTmpfs();                // the empty tmpfs at kNewRootMountpoint
bool ExecuteMountPlan(ChildPlan& plan);  // mount_ops.cc; reports its own failure
bool PivotIntoNewRoot();                 // and detaches the host's root
bool SetSandboxHostname();
bool BringUpLoopback();
// RLIMIT_NOFILE (unless 0), RLIMIT_CORE 0 (a core dump would be written to /workspace, past the
// disk limit).
bool ApplyRlimits(const CommandLaunch& command);
// Persistent sandboxes: the agent's fds (0-2 its stdio, 3 the listening socket, the error pipe
// and the agent binary above), every other fd closed; then the exec of the agent.
bool PlaceAgentFds(ChildPlan& plan);
[[noreturn]] void ExecAgent(const ChildPlan& plan);

// --- The command and its init (command_steps.cc).
bool DropPrivileges(const ChildPlan& plan);  // uid/gid, bounding set, every capability set empty
bool SetNoNewPrivs();
bool InstallSeccomp(const CommandLaunch& command);
// A prepared init: closes what it will not use and waits for the request's fields (exec_go.h).
// Exits 0 without a request.
void AwaitGo(ChildPlan& plan);

// What the init and the command share while the command is spawned (CLONE_VM | CLONE_VFORK):
// the init's signal mask and handlers, which the command restores to defaults before exec.
struct CommandSpawn {
  const ChildPlan* plan = nullptr;
  sigset_t saved_mask = {};
  sigset_t caught_signals = {};
};
void FindCaughtSignals(CommandSpawn& spawn);
// Starts `command_main(&spawn)` as the command's process; returns when it has exec'd or failed.
pid_t SpawnCommand(CommandSpawn& spawn, int (*command_main)(void*));
void RestoreSignals(const CommandSpawn& spawn);  // the command's first step
bool RedirectStdio(const ChildPlan& plan);       // 0-2 from the plan, every other fd closed
// execvp with the plan's argv and envp; on failure reports and exits 127 (ENOENT) or 126.
[[noreturn]] void ExecCommand(const ChildPlan& plan);
// The last pid this process's PID namespace handed out (its ns_last_pid), -1 if unreadable.
int64_t LastPidOfNamespace();
// The init's life once the command runs: reap, then kill and reap the rest, report (the pids
// handed out since `last_pid_before`, LastPidOfNamespace before the spawn). Never returns.
[[noreturn]] void RunInit(ChildPlan& plan, pid_t command, int64_t last_pid_before);

// --- Reporting (box_steps.cc).
// One error record, best effort.
void ReportChildError(const ChildPlan& plan, ChildStep step, int err, const char* detail);
// Reports errno at `step` and exits 125.
[[noreturn]] void DieWithChildError(const ChildPlan& plan, ChildStep step, const char* detail);
// With plan.die_with_parent, (re)arms SIGKILL on the parent's death and exits if the parent is
// already gone. Needed after every uid change: the kernel clears the parent-death signal whenever
// credentials change (prctl(2)).
void ArmParentDeathSignal(const ChildPlan& plan);

}  // namespace agentbox
