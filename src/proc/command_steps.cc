// The command's steps and its init's (proc/child_steps.h): hardening, the spawn, the exec and the
// init's reaping. Their order is child_order.cc's. The init is PID 1 of the sandbox (`run`) or of
// an exec's own PID namespace (native agent), or a subreaper (container agent).
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>

#include "proc/child_steps.h"
#include "proc/exec_go.h"
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
bool CheckIdentity(const CommandLaunch& c) {
  uid_t ruid, euid, suid;
  gid_t rgid, egid, sgid;
  if (::getresuid(&ruid, &euid, &suid) != 0 || ::getresgid(&rgid, &egid, &sgid) != 0) return false;
  if (ruid != c.uid || euid != c.uid || suid != c.uid || rgid != c.gid || egid != c.gid ||
      sgid != c.gid) {
    errno = EPERM;
    return false;
  }
  return true;
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

// PID 1 of a PID namespace: every process of it but this one. kill(-1) reaches them all: they
// share its uid, and a fork racing with the kill fails on the pending SIGKILL.
void KillNamespaceAndReap() {
  ::kill(-1, SIGKILL);
  for (;;) {
    int status = 0;
    if (::waitpid(-1, &status, __WALL) < 0 && errno != EINTR) return;  // ECHILD: only we are left
  }
}

// The command's stack until it execs: it shares the init's memory (SpawnCommand).
alignas(64) char command_stack[128 * 1024];

}  // namespace

// setresuid away from uid 0 clears the permitted and effective sets; bounding, inheritable and
// ambient are cleared explicitly.
bool DropPrivileges(const ChildPlan& plan) {
  const CommandLaunch& c = plan.command;
  if (!c.change_identity) return CheckIdentity(c) && ClearCapabilities();
  if (plan.can_setgroups && ::setgroups(0, nullptr) != 0) return false;
  if (::setresgid(c.gid, c.gid, c.gid) != 0) return false;
  // Capabilities are numbered 0..CAP_LAST_CAP with no gaps: the first EINVAL is past the last.
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) continue;
    if (errno == EINVAL) break;
    return false;
  }
  if (::setresuid(c.uid, c.uid, c.uid) != 0) return false;
  return ClearCapabilities();
}

bool SetNoNewPrivs() { return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0; }

bool InstallSeccomp(const CommandLaunch& command) {
  struct sock_fprog prog = {};
  prog.len = static_cast<unsigned short>(command.seccomp->size());
  // BpfInstruction has the layout of struct sock_filter (checked in native_run.cc).
  prog.filter =
      reinterpret_cast<struct sock_filter*>(const_cast<BpfInstruction*>(command.seccomp->data()));
  return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0;
}

// Only the fds it will use stay open while it waits (the handler's sockets must not live on in
// it), and it is non-dumpable while it waits too: no /proc/PID/fd or mem for others.
void AwaitGo(ChildPlan& plan) {
  const CommandLaunch& c = plan.command;
  CloseAllExcept(
      {c.stdout_write, c.stderr_write, c.status_write, plan.error_write, c.go_fd, plan.sync_read});
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (!ReceiveGo(plan.command)) ::_exit(0);  // the handler served something else, or died
}

// The signals this process has handlers for (not ignored, not default).
void FindCaughtSignals(CommandSpawn& spawn) {
  sigemptyset(&spawn.caught_signals);
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction action = {};
    if (::sigaction(sig, nullptr, &action) == 0 && action.sa_handler != SIG_IGN &&
        action.sa_handler != SIG_DFL) {
      sigaddset(&spawn.caught_signals, sig);
    }
  }
}

// Every signal stays blocked from before the clone until the command restored its defaults: a
// handler of the init must never run on the command's stack.
pid_t SpawnCommand(CommandSpawn& spawn, int (*command_main)(void*)) {
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &spawn.saved_mask);
  pid_t pid = ::clone(command_main, command_stack + sizeof(command_stack),
                      CLONE_VM | CLONE_VFORK | SIGCHLD, &spawn);
  int saved = errno;
  ::sigprocmask(SIG_SETMASK, &spawn.saved_mask, nullptr);
  errno = saved;
  return pid;
}

void RestoreSignals(const CommandSpawn& spawn) {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sigismember(&spawn.caught_signals, sig) == 1) ::signal(sig, SIG_DFL);
  }
  ::sigprocmask(SIG_SETMASK, &spawn.saved_mask, nullptr);
}

bool RedirectStdio(const ChildPlan& plan) {
  const CommandLaunch& c = plan.command;
  if (sys::DupTo(c.stdin_fd, 0) < 0 || sys::DupTo(c.stdout_write, 1) < 0 ||
      sys::DupTo(c.stderr_write, 2) < 0) {
    return false;
  }
  if (plan.error_write > 3) sys::CloseRange(3, static_cast<unsigned>(plan.error_write) - 1);
  sys::CloseRange(static_cast<unsigned>(plan.error_write) + 1, ~0U);
  return true;
}

void ExecCommand(const ChildPlan& plan) {
  ::signal(SIGPIPE, SIG_DFL);
  // The init's own `environ`, which shares this memory until the exec: the init never reads it.
  environ = const_cast<char**>(plan.command.envp.data());
  ::execvp(plan.command.argv[0], plan.command.argv.data());
  ReportChildError(plan, ChildStep::kExec, errno, plan.command.argv[0]);
  ::_exit(errno == ENOENT ? 127 : 126);
}

namespace {

// The command's process group, for ForwardSignal: set before the handlers are installed.
volatile pid_t forward_to_group = 0;

void ForwardSignal(int signal) {
  int saved = errno;
  if (forward_to_group > 0) ::kill(-forward_to_group, signal);
  errno = saved;
}

// A signal sent to the init reaches the command's process group instead: how `agentbox kill
// -s TERM` (proc_kill) reaches a background process, as a terminal's Ctrl-C would. Not SIGCHLD
// (the init's own), nor the faults a process raises on itself; SIGKILL and SIGSTOP cannot be
// caught: SIGKILL ends the init, and with it the tree.
void ForwardSignalsTo(pid_t command) {
  forward_to_group = command;
  struct sigaction action = {};
  action.sa_handler = ForwardSignal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    switch (sig) {
      case SIGKILL:
      case SIGSTOP:
      case SIGCHLD:
      case SIGSEGV:
      case SIGBUS:
      case SIGFPE:
      case SIGILL:
      case SIGTRAP:
      case SIGSYS:
        continue;
      default:
        ::sigaction(sig, &action, nullptr);
    }
  }
}

}  // namespace

int64_t LastPidOfNamespace() {
  // Reads the pid namespace of the reader (not of the /proc mounted), which is the init's own.
  int fd = ::open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[24];
  ssize_t n = ::read(fd, text, sizeof(text) - 1);
  ::close(fd);
  if (n <= 0) return -1;
  int64_t pid = 0;
  for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; ++i)
    pid = pid * 10 + (text[i] - '0');
  return pid;
}

// Reaps orphans until the command exits, then kills and reaps what is left of its tree
// (setsid'd, double-forked, SIGTERM-ignoring and stopped processes alike) and reports the
// command's wait status with the tree's usage. So the supervisor need not wait for this
// process's own exit, which tears down its namespaces. Without a PID namespace
// (init_is_subreaper) the orphans are this subreaper's children, found in /proc.
void RunInit(ChildPlan& plan, pid_t command, int64_t last_pid_before) {
  int status_fd = plan.command.status_write;
  // Before the error pipe closes: its EOF tells a keeper the command runs and may be signalled.
  ForwardSignalsTo(command);
  CloseAllExcept({status_fd, plan.sync_read});
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);            // no /proc/1/mem for the sandboxed commands
  ::prctl(PR_SET_NAME, "agentbox-init", 0, 0, 0);  // what `ps` shows as PID 1 of the command
  plan.error_write = -1;                           // closed above: failures from here on just exit
  ArmParentDeathSignal(plan);                      // DropPrivileges' setresuid cleared it
  InitReport report = {};
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, __WALL);  // __WALL: clone()d children too
    if (pid == command) {
      report.command_status = status;
      // kill(-1) only as PID 1 of a namespace of our own: anywhere else it would reach every
      // process of the uid.
      if (plan.command.init_is_subreaper || ::getpid() != 1) {
        KillAndReapChildren();
      } else {
        KillNamespaceAndReap();
      }
      struct rusage usage = {};
      ::getrusage(RUSAGE_CHILDREN, &usage);
      report.cpu_us = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000LL +
                      usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
      report.max_rss_kb = usage.ru_maxrss;
      report.written_bytes = static_cast<int64_t>(usage.ru_oublock) * 512;
      const int64_t last_pid = LastPidOfNamespace();
      // A namespace that wrapped around pid_max says nothing exact: unknown.
      report.pids_started =
          last_pid_before >= 0 && last_pid >= last_pid_before ? last_pid - last_pid_before : -1;
      ssize_t ignored = ::write(status_fd, &report, sizeof(report));
      (void)ignored;
      ::_exit(0);
    }
    if (pid < 0 && errno == ECHILD) ::_exit(0);
  }
}

}  // namespace agentbox
