// The box's steps and the child's error reporting (proc/child_steps.h). Their order is
// child_order.cc's.
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "proc/child_steps.h"
#include "spec/sandbox_spec.h"
#include "sys/loopback.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

// Where the agent's exec keeps the two fds it needs past the dup2s: well above 0-3.
constexpr int kAgentErrorFd = 64, kAgentExecFd = 65;

}  // namespace

bool WaitForParent(const ChildPlan& plan) {
  char byte;
  ssize_t n;
  do n = ::read(plan.sync_read, &byte, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1) errno = ECANCELED;
  return n == 1;
}

// Root of the user namespace (mapped to an unprivileged host uid): files the setup creates on
// the sandbox's own tmpfs get a mapped owner.
bool BecomeNamespaceRoot(const ChildPlan& plan) {
  if (!plan.box.become_namespace_root) return true;
  if (plan.can_setgroups && ::setgroups(0, nullptr) != 0) return false;
  return ::setresgid(0, 0, 0) == 0 && ::setresuid(0, 0, 0) == 0;
}

bool MakeMountsPrivate() {
  return ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
}

bool MountNewRootTmpfs() {
  return ::mount("tmpfs", kNewRootMountpoint, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") ==
         0;
}

// pivot_root onto the new root and detach the host's root entirely (bwrap/runc idiom).
bool PivotIntoNewRoot() {
  return ::chdir(kNewRootMountpoint) == 0 && sys::PivotRoot(".", ".") == 0 &&
         ::umount2(".", MNT_DETACH) == 0 && ::chdir("/") == 0;
}

bool SetSandboxHostname() {
  return ::sethostname(kSandboxHostname, std::strlen(kSandboxHostname)) == 0;
}

bool BringUpLoopback() { return sys::BringUpLoopback(); }

bool ApplyRlimits(const CommandLaunch& command) {
  struct rlimit core = {0, 0};
  if (::setrlimit(RLIMIT_CORE, &core) != 0) return false;
  if (command.rlimit_nofile == 0) return true;
  struct rlimit nofile = {command.rlimit_nofile, command.rlimit_nofile};
  return ::setrlimit(RLIMIT_NOFILE, &nofile) == 0;
}

bool PlaceAgentFds(ChildPlan& plan) {
  const CommandLaunch& c = plan.command;
  if (::dup3(plan.error_write, kAgentErrorFd, O_CLOEXEC) < 0 ||
      ::dup3(plan.box.agent_exec_fd, kAgentExecFd, O_CLOEXEC) < 0 ||
      sys::DupTo(c.stdin_fd, 0) < 0 || sys::DupTo(c.stdout_write, 1) < 0 ||
      sys::DupTo(c.stderr_write, 2) < 0 || sys::DupTo(plan.box.agent_keep_fd, 3) < 0) {
    return false;
  }
  plan.error_write = kAgentErrorFd;
  sys::CloseRange(4, kAgentErrorFd - 1);
  sys::CloseRange(kAgentExecFd + 1, ~0U);
  return true;
}

void ExecAgent(const ChildPlan& plan) {
  ::syscall(SYS_execveat, kAgentExecFd, "", plan.command.argv.data(), plan.command.envp.data(),
            AT_EMPTY_PATH);
  DieWithChildError(plan, ChildStep::kExec, "agentbox-agent");
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

void DieWithChildError(const ChildPlan& plan, ChildStep step, const char* detail) {
  ReportChildError(plan, step, errno, detail);
  ::_exit(125);
}

void ArmParentDeathSignal(const ChildPlan& plan) {
  if (!plan.die_with_parent) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  struct pollfd parent = {plan.sync_read, 0, 0};  // POLLHUP is always reported
  if (plan.sync_read >= 0 && ::poll(&parent, 1, 0) > 0 && (parent.revents & POLLHUP)) ::_exit(125);
}

}  // namespace agentbox
