// The child's setup order, in ONE place. Runs between clone and exec: no allocation, no logging,
// no exceptions, no locks. Each step says why it is where it is.
#include "native/child_setup.h"

#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "spec/sandbox_spec.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

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
  if (!plan.become_namespace_root) return true;
  if (plan.can_setgroups && ::setgroups(0, nullptr) != 0) return false;
  return ::setresgid(0, 0, 0) == 0 && ::setresuid(0, 0, 0) == 0;
}

bool BringUpLoopback() {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  struct ifreq ifr = {};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  ifr.ifr_flags = IFF_UP | IFF_RUNNING;
  bool ok = ::ioctl(fd, SIOCSIFFLAGS, &ifr) == 0;
  ::close(fd);
  return ok;
}

// pivot_root onto the new root and detach the host's root entirely (bwrap/runc idiom).
bool PivotIntoNewRoot() {
  return ::chdir(kNewRootMountpoint) == 0 && sys::PivotRoot(".", ".") == 0 &&
         ::umount2(".", MNT_DETACH) == 0 && ::chdir("/") == 0;
}

// fd layout of the agent: 0 /dev/null, 1-2 its log, 3 the listening socket.
[[noreturn]] void ExecAgent(ChildPlan& plan) {
  constexpr int kErrorFd = 64, kExecFd = 65;
  if (::dup3(plan.error_write, kErrorFd, O_CLOEXEC) < 0 ||
      ::dup3(plan.agent_exec_fd, kExecFd, O_CLOEXEC) < 0 || sys::DupTo(plan.stdin_fd, 0) < 0 ||
      sys::DupTo(plan.stdout_write, 1) < 0 || sys::DupTo(plan.stderr_write, 2) < 0 ||
      sys::DupTo(plan.agent_keep_fd, 3) < 0) {
    DieWithChildError(plan, ChildStep::kExec, "agent fds");
  }
  plan.error_write = kErrorFd;
  sys::CloseRange(4, kErrorFd - 1);
  sys::CloseRange(kExecFd + 1, ~0U);
  // After the fds above are in place: an open_files limit below them (16 is allowed) refuses
  // new fds past it, not ones already open.
  if (!ApplyRlimits(plan)) DieWithChildError(plan, ChildStep::kRlimits, "");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    DieWithChildError(plan, ChildStep::kNoNewPrivs, "");
  ::syscall(SYS_execveat, kExecFd, "", plan.agent_argv.data(), plan.envp.data(), AT_EMPTY_PATH);
  DieWithChildError(plan, ChildStep::kExec, "agentbox-agent");
}

}  // namespace

void RunChild(ChildPlan& plan) {
  // 1. Wait until the parent wrote our uid/gid maps and put us in the sandbox's cgroup.
  if (!WaitForParent(plan)) ::_exit(125);
  // 2. Become root of the new user namespace, which owns all our other namespaces.
  if (!BecomeNamespaceRoot(plan)) DieWithChildError(plan, ChildStep::kIdentity, "");
  ArmParentDeathSignal(plan);
  // 3. Now inside the sandbox cgroup: make it the root of a cgroup namespace.
  if (::unshare(CLONE_NEWCGROUP) != 0) DieWithChildError(plan, ChildStep::kCgroupNamespace, "");
  // 4. No mount event may propagate back to the host.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    DieWithChildError(plan, ChildStep::kMakePrivate, "/");
  }
  // 5. The new root: an empty tmpfs, made read-only by the plan's last step.
  if (::mount("tmpfs", kNewRootMountpoint, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") !=
      0) {
    DieWithChildError(plan, ChildStep::kRootTmpfs, kNewRootMountpoint);
  }
  // 6. Binds (trees the parent cloned), tmpfs, /dev, /proc, /workspace, then read-only root.
  if (!ExecuteMountPlan(plan)) ::_exit(125);
  // 7. Host root gone for good.
  if (!PivotIntoNewRoot()) DieWithChildError(plan, ChildStep::kPivotRoot, "");
  if (::sethostname(kSandboxHostname, std::strlen(kSandboxHostname)) != 0) {
    DieWithChildError(plan, ChildStep::kHostname, kSandboxHostname);
  }
  if (!BringUpLoopback()) DieWithChildError(plan, ChildStep::kLoopback, "lo");
  // 8. A persistent sandbox: the agent becomes PID 1 and serves exec and file requests.
  if (plan.agent_exec_fd >= 0) ExecAgent(plan);
  if (!ApplyRlimits(plan)) DieWithChildError(plan, ChildStep::kRlimits, "");
  // 9. One command: split into the sandbox init (this process, PID 1) and the command.
  ForkCommandAndBecomeInit(plan);
}

}  // namespace agentbox
