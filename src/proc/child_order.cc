// The child's order, in ONE place: every step from clone to exec, for the sandbox and for each
// exec, with the reason it is where it is. The steps themselves are proc/child_steps.h. Runs
// between clone and exec: no allocation, no logging, no exceptions, no locks.
#include "proc/child_order.h"

#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "proc/child_steps.h"
#include "proc/exec_go.h"
#include "proc/process_tree.h"
#include "proc/seccomp_listener.h"
#include "proc/time_namespace.h"

namespace agentbox {
namespace {

// The command's process, sharing the init's memory until it execs (SpawnCommand).
int CommandMain(void* arg) {
  const CommandSpawn& spawn = *static_cast<const CommandSpawn*>(arg);
  const ChildPlan& plan = *spawn.plan;
  // c1. Signals the init catches must not run its handlers on this stack: back to their
  //     defaults (exec does the same), then the mask blocked for the spawn is restored.
  RestoreSignals(spawn);
  // c2. Its own session: no controlling terminal to push keystrokes into, its own process group.
  ::setsid();
  // c3. Only fds 0-2 (CVE-2024-21626: a leaked host fd is a way out). The error pipe is CLOEXEC.
  if (!RedirectStdio(plan)) DieWithChildError(plan, ChildStep::kExec, "stdio");
  // c3b. A terminal exec: the PTY on fd 0 becomes this new session's controlling terminal, and
  //      its process group the terminal's foreground one. The filter allows TIOCSCTTY; it
  //      denies only pushing input (TIOCSTI) and the console's (TIOCLINUX).
  if (plan.command.controlling_tty && ::ioctl(0, TIOCSCTTY, 0) != 0) {
    DieWithChildError(plan, ChildStep::kExec, "controlling terminal");
  }
  // c4. Already the sandbox user: a cwd the command may not enter is refused as it would be to it.
  if (::chdir(plan.command.cwd.c_str()) != 0) {
    DieWithChildError(plan, ChildStep::kCwd, plan.command.cwd.c_str());
  }
  // c5. The command, with the identity, no_new_privs and filters its init set before the spawn.
  ExecCommand(plan);
}

// The last part of every order: harden, spawn the command, stay as its init.
[[noreturn]] void LaunchCommand(ChildPlan& plan) {
  // L1. Before the spawn: an orphan of the command's tree must never reach the agent's PID 1.
  if (plan.command.init_is_subreaper && !BecomeSubreaper()) {
    DieWithChildError(plan, ChildStep::kSubreaper, "");
  }
  // L2-L4 before the spawn, so the command inherits them: one filter attached (and JIT-compiled)
  // per command, not one for the init and one for it. Nothing after them can regain privilege.
  // L2. uid/gid 1000 with every capability set empty (docs/contract.md §2).
  if (!DropPrivileges(plan)) DieWithChildError(plan, ChildStep::kDropPrivileges, "");
  // L3. No setuid file or file capability can give any of it back.
  if (!SetNoNewPrivs()) DieWithChildError(plan, ChildStep::kNoNewPrivs, "");
  // L4. The filter last, so every step before it may use any syscall. Its listener goes to the
  //     supervisor, which answers the denials (and the fallocate watch) and counts them for the
  //     effect report; where the kernel gives none, the kernel answers them.
  if (plan.command.listener_channel >= 0) {
    if (!AttachFilterAndSendListener(*plan.command.seccomp, *plan.command.seccomp_without_listener,
                                     plan.command.listener_channel)) {
      DieWithChildError(plan, ChildStep::kSeccomp, "sending the seccomp listener");
    }
    plan.command.listener_channel = -1;
  } else if (!InstallSeccomp(plan.command)) {
    DieWithChildError(plan, ChildStep::kSeccomp, "");
  }
  // L5. Found before a prepared init waits, so the command's side does not ask for all 64.
  CommandSpawn spawn;
  spawn.plan = &plan;
  FindCaughtSignals(spawn);
  // L6. A prepared init (a warm handler's): hardened, it now waits for the request's fields.
  if (plan.command.go_fd >= 0) AwaitGo(plan);
  // L7. CLONE_VM | CLONE_VFORK, as posix_spawn: no copy of the page tables before the exec.
  //     The namespace's last pid first: the report counts the pids handed out after it.
  const int64_t last_pid = LastPidOfNamespace();
  pid_t command = SpawnCommand(spawn, CommandMain);
  if (command < 0) DieWithChildError(plan, ChildStep::kFork, "");
  // L8. Reap until the command exits, kill and reap what is left of its tree, report.
  RunInit(plan, command, last_pid);
}

}  // namespace

void RunSandboxChild(ChildPlan& plan) {
  // S1. Wait until the parent wrote our uid/gid maps and put us in the sandbox's cgroup.
  if (!WaitForParent(plan)) ::_exit(125);
  // S2. Become root of the new user namespace, which owns all our other namespaces.
  if (!BecomeNamespaceRoot(plan)) DieWithChildError(plan, ChildStep::kIdentity, "");
  ArmParentDeathSignal(plan);  // S2 changed our credentials, which cleared it
  // S3. Now inside the sandbox cgroup: make it the root of a cgroup namespace.
  if (::unshare(CLONE_NEWCGROUP) != 0) DieWithChildError(plan, ChildStep::kCgroupNamespace, "");
  // S3b. clock_start: a time namespace with the clocks' offsets, made while /proc is the host's
  //      and we are root of the user namespace. We stay outside it; the agent (S9) or the
  //      command (L8) enters it at its exec, with nothing else of the box's setup in between.
  if (!plan.box.timens_offsets.empty() && !EnterTimeNamespace(plan.box.timens_offsets.c_str())) {
    DieWithChildError(plan, ChildStep::kTimeNamespace, "");
  }
  // S4. No mount event may propagate back to the host.
  if (!MakeMountsPrivate()) DieWithChildError(plan, ChildStep::kMakePrivate, "/");
  // S5. The new root: an empty tmpfs, made read-only by the plan's last step.
  if (!MountNewRootTmpfs()) DieWithChildError(plan, ChildStep::kRootTmpfs, kNewRootMountpoint);
  // S6. Binds (trees the parent cloned), tmpfs, /dev, /proc, /workspace, then read-only root.
  if (!ExecuteMountPlan(plan)) ::_exit(125);
  // S7. Host root gone for good.
  if (!PivotIntoNewRoot()) DieWithChildError(plan, ChildStep::kPivotRoot, "");
  // S8. The sandbox's own name and a loopback that is up (the net namespace has nothing else).
  if (!SetSandboxHostname()) DieWithChildError(plan, ChildStep::kHostname, "");
  if (!BringUpLoopback()) DieWithChildError(plan, ChildStep::kLoopback, "lo");
  // S9. A persistent sandbox: the agent becomes PID 1 and serves exec and file requests; each
  //     exec then runs RunNamespaceExecChild below.
  if (plan.box.agent_exec_fd >= 0) {
    if (!PlaceAgentFds(plan)) DieWithChildError(plan, ChildStep::kExec, "agent fds");
    // After the fds are in place: an open_files limit below them (32 is allowed) refuses new fds
    // past it, not ones already open.
    if (!ApplyRlimits(plan.command)) DieWithChildError(plan, ChildStep::kRlimits, "");
    // The agent keeps the capabilities of the namespace's root (it makes each exec's
    // namespaces); nothing it execs can gain more.
    if (!SetNoNewPrivs()) DieWithChildError(plan, ChildStep::kNoNewPrivs, "");
    ExecAgent(plan);
  }
  // S10. One command (`run`): the limits it inherits, then this process becomes its init.
  if (!ApplyRlimits(plan.command)) DieWithChildError(plan, ChildStep::kRlimits, "");
  LaunchCommand(plan);
}

void RunNamespaceExecChild(ChildPlan& plan) {
  // E1. A new mount namespace copies the agent's mounts as shared: make them private first.
  if (!MakeMountsPrivate()) DieWithChildError(plan, ChildStep::kMakePrivate, "/");
  // E2. Its own /proc (this PID namespace's processes only), masked like the sandbox's.
  if (!ExecuteMountPlan(plan)) ::_exit(125);
  // E3. The open_files limit is the agent's, which S9 set and this process inherited.
  LaunchCommand(plan);
}

void RunSubreaperExecChild(ChildPlan& plan) {
  // D1. The limits (a 0 keeps docker's --ulimit); no namespaces to enter: docker made the box.
  if (!ApplyRlimits(plan.command)) DieWithChildError(plan, ChildStep::kRlimits, "");
  LaunchCommand(plan);  // L1 makes it the subreaper before the command exists
}

}  // namespace agentbox
