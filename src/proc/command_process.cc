// The command process and its init: the last steps before exec, shared by `run` (where the
// sandbox's PID 1 is the init) and the agent's exec (where each exec gets a fresh PID namespace
// whose PID 1 is the init). Same rules as child_setup.cc: no allocation, no logging.
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "proc/child_plan.h"
#include "proc/exec_go.h"
#include "proc/fallocate_watch.h"
#include "proc/process_tree.h"
#include "sys/syscalls.h"

extern char** environ;

namespace agentbox {
namespace {

bool ClearCapabilities() {
  // EINVAL: no ambient set to clear (gVisor does not implement it); capset below still runs.
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    return false;
  }
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {};
  return ::syscall(SYS_capset, &header, data) == 0;
}

// Already the sandbox user (a box agentbox did not build): nothing to switch, but refuse to run
// the command as anyone else. EPERM names the mismatch.
bool CheckIdentity(const ChildPlan& plan) {
  uid_t ruid, euid, suid;
  gid_t rgid, egid, sgid;
  if (::getresuid(&ruid, &euid, &suid) != 0 || ::getresgid(&rgid, &egid, &sgid) != 0) return false;
  if (ruid != plan.uid || euid != plan.uid || suid != plan.uid || rgid != plan.gid ||
      egid != plan.gid || sgid != plan.gid) {
    errno = EPERM;
    return false;
  }
  return true;
}

// uid/gid 1000 with every capability set empty (CONTRACT §2). setresuid away from uid 0 clears
// the permitted and effective sets; bounding, inheritable and ambient are cleared explicitly.
bool DropPrivileges(const ChildPlan& plan) {
  if (!plan.change_identity) return CheckIdentity(plan) && ClearCapabilities();
  if (plan.can_setgroups && ::setgroups(0, nullptr) != 0) return false;
  if (::setresgid(plan.gid, plan.gid, plan.gid) != 0) return false;
  // Capabilities are numbered 0..CAP_LAST_CAP with no gaps: the first EINVAL is past the last.
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) continue;
    if (errno == EINVAL) break;
    return false;
  }
  if (::setresuid(plan.uid, plan.uid, plan.uid) != 0) return false;
  return ClearCapabilities();
}

bool InstallSeccomp(const ChildPlan& plan) {
  struct sock_fprog prog = {};
  prog.len = static_cast<unsigned short>(plan.seccomp->size());
  // BpfInstruction has the layout of struct sock_filter (checked in native_run.cc).
  prog.filter =
      reinterpret_cast<struct sock_filter*>(const_cast<BpfInstruction*>(plan.seccomp->data()));
  return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0;
}

// The last steps shared by the sandbox init and the command: nothing after them can regain
// privilege, and the filters go last so the steps before them may use any syscall (the watch's
// sendmsg included).
void Harden(ChildPlan& plan) {
  if (!DropPrivileges(plan)) DieWithChildError(plan, ChildStep::kDropPrivileges, "");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    DieWithChildError(plan, ChildStep::kNoNewPrivs, "");
  if (plan.watch_channel >= 0) {
    if (!InstallFallocateWatch(plan.watch_channel)) {
      DieWithChildError(plan, ChildStep::kSeccomp, "sending the fallocate watch");
    }
    plan.watch_channel = -1;
  }
  if (!InstallSeccomp(plan)) DieWithChildError(plan, ChildStep::kSeccomp, "");
}

[[noreturn]] void ExecCommand(const ChildPlan& plan) {
  // Its own session: no controlling terminal to push keystrokes into, its own process group.
  ::setsid();
  if (sys::DupTo(plan.stdin_fd, 0) < 0 || sys::DupTo(plan.stdout_write, 1) < 0 ||
      sys::DupTo(plan.stderr_write, 2) < 0) {
    DieWithChildError(plan, ChildStep::kExec, "stdio");
  }
  // Only fds 0-2 (CVE-2024-21626: a leaked host fd is a way out). The error pipe is CLOEXEC.
  if (plan.error_write > 3) sys::CloseRange(3, static_cast<unsigned>(plan.error_write) - 1);
  sys::CloseRange(static_cast<unsigned>(plan.error_write) + 1, ~0U);
  // Already the sandbox user: a cwd the command may not enter is refused as it would be to it.
  if (::chdir(plan.cwd.c_str()) != 0) DieWithChildError(plan, ChildStep::kCwd, plan.cwd.c_str());
  ::signal(SIGPIPE, SIG_DFL);
  // The init's own `environ`, which shares this memory until the exec: the init never reads it.
  environ = const_cast<char**>(plan.envp.data());
  ::execvp(plan.argv[0], plan.argv.data());
  ReportChildError(plan, ChildStep::kExec, errno, plan.argv[0]);
  ::_exit(errno == ENOENT ? 127 : 126);
}

// The command's stack until it execs: it shares the init's memory (SpawnCommand).
alignas(64) char command_stack[128 * 1024];

// The signals this process has handlers for (not ignored, not default). Found before the spawn
// (a prepared init: while it waits), so the command's side does not ask for all 64.
void FindCaughtSignals(ChildPlan& plan) {
  sigemptyset(&plan.caught_signals);
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction action = {};
    if (::sigaction(sig, nullptr, &action) == 0 && action.sa_handler != SIG_IGN &&
        action.sa_handler != SIG_DFL) {
      sigaddset(&plan.caught_signals, sig);
    }
  }
}

int CommandMain(void* plan) {
  const auto& p = *static_cast<const ChildPlan*>(plan);
  // Signals the init catches must not run its handlers on this stack: back to their defaults
  // (exec does the same), then the init's mask, blocked in SpawnCommand, is restored.
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sigismember(&p.caught_signals, sig) == 1) ::signal(sig, SIG_DFL);
  }
  ::sigprocmask(SIG_SETMASK, &p.spawn_saved_mask, nullptr);
  ExecCommand(p);
}

// CLONE_VM | CLONE_VFORK, as posix_spawn does: no copy of the init's page tables and no
// copy-on-write faults before the exec (each costs a millisecond on a paravirtualized host);
// the init sleeps until the command has exec'd or failed.
pid_t SpawnCommand(ChildPlan& plan) {
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &plan.spawn_saved_mask);
  pid_t pid = ::clone(CommandMain, command_stack + sizeof(command_stack),
                      CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
  int saved = errno;
  ::sigprocmask(SIG_SETMASK, &plan.spawn_saved_mask, nullptr);
  errno = saved;
  return pid;
}

// Closes every fd but those in `keep` (-1 entries: none). No allocation.
void CloseAllExcept(std::initializer_list<int> keep) {
  int sorted[8];
  size_t n = 0;
  for (int fd : keep) {
    if (fd < 0 || n == sizeof(sorted) / sizeof(sorted[0])) continue;
    size_t i = n++;
    for (; i > 0 && sorted[i - 1] > fd; --i) sorted[i] = sorted[i - 1];
    sorted[i] = fd;
  }
  unsigned next = 0;
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<unsigned>(sorted[i]) > next) {
      sys::CloseRange(next, static_cast<unsigned>(sorted[i]) - 1);
    }
    next = static_cast<unsigned>(sorted[i]) + 1;
  }
  sys::CloseRange(next, ~0U);
}

// A prepared init, hardened already: only the fds it will use stay open while it waits (the
// handler's sockets must not live on in it), then the request's own fields arrive. No request
// (the handler served something else, or died): nothing to report.
void AwaitGo(ChildPlan& plan) {
  CloseAllExcept({plan.stdout_write, plan.stderr_write, plan.status_write, plan.error_write,
                  plan.go_fd, plan.sync_read});
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);  // while it waits, too: no /proc/PID/fd or mem for others
  if (!ReceiveGo(plan)) ::_exit(0);
}

// PID 1 of a PID namespace: every process of it but this one. kill(-1) reaches them all: they
// share its uid, and a fork racing with the kill fails on the pending SIGKILL.
void KillNamespaceAndReap() {
  ::kill(-1, SIGKILL);
  for (;;) {
    int status = 0;
    if (::waitpid(-1, &status, __WALL) < 0 && errno != EINTR) return;  // ECHILD: only we are left
  }
}

// The sandbox's or the exec's init: reaps orphans until the command exits, then kills and reaps
// what is left of its tree (setsid'd, double-forked, SIGTERM-ignoring and stopped processes
// alike) and reports the command's wait status with the tree's usage. So the supervisor need
// not wait for this process's own exit, which tears down its namespaces. Without a PID
// namespace (init_is_subreaper) the orphans are this subreaper's children, found in /proc.
[[noreturn]] void RunInit(ChildPlan& plan, pid_t command) {
  int status_fd = plan.status_write;
  CloseAllExcept({status_fd, plan.sync_read});
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);            // no /proc/1/mem for the sandboxed commands
  ::prctl(PR_SET_NAME, "agentbox-init", 0, 0, 0);  // what `ps` shows as PID 1 of the command
  plan.error_write = -1;                           // closed above: failures from here on just exit
  ArmParentDeathSignal(plan);                      // setresuid in Harden cleared it
  InitReport report = {};
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, __WALL);  // __WALL: clone()d children too
    if (pid == command) {
      report.command_status = status;
      // kill(-1) only as PID 1 of a namespace of our own: anywhere else it would reach every
      // process of the uid.
      if (plan.init_is_subreaper || ::getpid() != 1) {
        KillAndReapChildren();
      } else {
        KillNamespaceAndReap();
      }
      struct rusage usage = {};
      ::getrusage(RUSAGE_CHILDREN, &usage);
      report.cpu_us = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000LL +
                      usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
      report.max_rss_kb = usage.ru_maxrss;
      ssize_t ignored = ::write(status_fd, &report, sizeof(report));
      (void)ignored;
      ::_exit(0);
    }
    if (pid < 0 && errno == ECHILD) ::_exit(0);
  }
}

}  // namespace

[[noreturn]] void ForkCommandAndBecomeInit(ChildPlan& plan) {
  // Before the fork: an orphan of the command's tree must never reach the agent's PID 1.
  if (plan.init_is_subreaper && !BecomeSubreaper()) {
    DieWithChildError(plan, ChildStep::kSubreaper, "");
  }
  // Before the spawn, so the command inherits the identity, no_new_privs and the filter: one
  // filter attached (and JIT-compiled) per command, not one for the init and one for it.
  Harden(plan);
  FindCaughtSignals(plan);
  if (plan.go_fd >= 0) AwaitGo(plan);
  pid_t command = SpawnCommand(plan);
  if (command < 0) DieWithChildError(plan, ChildStep::kFork, "");
  RunInit(plan, command);
}

const char* ChildStepName(ChildStep step) {
  switch (step) {
    case ChildStep::kSync:
      return "waiting for the parent";
    case ChildStep::kIdentity:
      return "becoming root of the user namespace";
    case ChildStep::kCgroupNamespace:
      return "creating the cgroup namespace";
    case ChildStep::kMakePrivate:
      return "making mounts private";
    case ChildStep::kRootTmpfs:
      return "mounting the new root";
    case ChildStep::kMount:
      return "mounting";
    case ChildStep::kHostname:
      return "setting the hostname";
    case ChildStep::kLoopback:
      return "bringing up loopback";
    case ChildStep::kPivotRoot:
      return "pivot_root";
    case ChildStep::kRlimits:
      return "setting rlimits";
    case ChildStep::kSubreaper:
      return "becoming the subreaper of the command's processes";
    case ChildStep::kFork:
      return "forking the command";
    case ChildStep::kCwd:
      return "changing to the working directory";
    case ChildStep::kDropPrivileges:
      return "dropping privileges";
    case ChildStep::kNoNewPrivs:
      return "setting no_new_privs";
    case ChildStep::kSeccomp:
      return "installing the seccomp filter";
    case ChildStep::kExec:
      return "executing the command";
  }
  return "unknown step";
}

bool ApplyRlimits(const ChildPlan& plan) {
  struct rlimit core = {0, 0};
  if (::setrlimit(RLIMIT_CORE, &core) != 0) return false;
  if (plan.rlimit_nofile == 0) return true;
  struct rlimit nofile = {plan.rlimit_nofile, plan.rlimit_nofile};
  return ::setrlimit(RLIMIT_NOFILE, &nofile) == 0;
}

void ArmParentDeathSignal(const ChildPlan& plan) {
  if (!plan.die_with_parent) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  struct pollfd parent = {plan.sync_read, 0, 0};  // POLLHUP is always reported
  if (plan.sync_read >= 0 && ::poll(&parent, 1, 0) > 0 && (parent.revents & POLLHUP)) ::_exit(125);
}

void DieWithChildError(const ChildPlan& plan, ChildStep step, const char* detail) {
  ReportChildError(plan, step, errno, detail);
  ::_exit(125);
}

void ReportChildError(const ChildPlan& plan, ChildStep step, int err, const char* detail) {
  if (plan.error_write < 0) return;
  ChildError record = {};
  record.step = step;
  record.err = err;
  std::strncpy(record.detail, detail ? detail : "", sizeof(record.detail) - 1);
  ssize_t ignored = ::write(plan.error_write, &record, sizeof(record));
  (void)ignored;
}

}  // namespace agentbox
