// RunDoctorChecks: can this host give every layer the native backend promises?
//
// Host side. Each check is a real attempt (a syscall with harmless arguments, or a forked child
// that tries the thing and exits), never a kernel-version guess, and says how to fix a failure.
#include "native/doctor.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "native/doctor_internal.h"
#include "proc/cgroup.h"
#include "proc/workspace.h"
#include "proc/workspace_pool.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace doctor_internal {

std::string FormatDoctorChecks(const std::vector<DoctorCheck>& checks) {
  std::string out;
  for (const auto& c : checks) {
    out += (c.ok ? "[ ok ] " : "[FAIL] ") + c.layer + ": " + c.detail + "\n";
  }
  return out;
}

StatusOr<ProbeResults> RunProbeInChild(ProbeFn probe, const void* arg) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("pipe2");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoStatus("fork");
  if (pid == 0) {
    ProbeResults results;
    results.fill(kNotTried);
    probe(results, arg);
    ssize_t n = ::write(write_end.get(), &results, sizeof(results));
    ::_exit(n == static_cast<ssize_t>(sizeof(results)) ? 0 : 1);
  }
  write_end.reset();
  ProbeResults results;
  ssize_t n;
  do {
    n = ::read(read_end.get(), &results, sizeof(results));
  } while (n < 0 && errno == EINTR);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof(results))) {
    return Internal("doctor probe child died before reporting (wait status " +
                    std::to_string(status) + ")");
  }
  return results;
}

}  // namespace doctor_internal

namespace {

using doctor_internal::ProbeResults;

// Which errno a syscall gives for deliberately invalid arguments: anything but ENOSYS means the
// kernel has it; EPERM means something (a container's seccomp profile) blocks it.
int BadArgsErrno(long nr, long a, long b, long c, long d, long e) {
  errno = 0;
  long ret = ::syscall(nr, a, b, c, d, e);
  return ret == 0 ? 0 : errno;
}

DoctorCheck SyscallCheck(const std::string& layer, const std::string& name, int err,
                         const std::string& since) {
  if (err == ENOSYS) return {layer, false, "kernel lacks " + name + "(2): needs " + since};
  if (err == EPERM) {
    return {layer, false,
            name +
                "(2) is blocked (EPERM), likely by a container seccomp profile: run agentbox "
                "with a profile that allows it"};
  }
  return {layer, true, name + "(2) available"};
}

// no_new_privs and a seccomp filter, tried for real in a child (both are irreversible).
void SeccompProbe(ProbeResults& r, const void*) {
  r[0] = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {1, &allow};
  r[1] = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : errno;
}

std::vector<DoctorCheck> SeccompChecks() {
  auto probe = doctor_internal::RunProbeInChild(SeccompProbe, nullptr);
  if (!probe.ok()) return {{"seccomp filters", false, probe.status().message()}};
  const ProbeResults& r = *probe;
  DoctorCheck nnp{"no_new_privs", r[0] == 0, "prctl(PR_SET_NO_NEW_PRIVS) works"};
  if (r[0] != 0) nnp.detail = std::string("prctl(PR_SET_NO_NEW_PRIVS) failed: ") + strerror(r[0]);
  DoctorCheck filter{"seccomp filters", r[1] == 0, ""};
  uint32_t action = SECCOMP_RET_KILL_PROCESS;
  bool kill_process =
      ::syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;  // Linux 4.14+
  if (r[1] != 0) {
    filter.detail = std::string("installing a seccomp filter failed: ") + strerror(r[1]) +
                    " (kernel needs CONFIG_SECCOMP_FILTER=y)";
  } else if (!kill_process) {
    filter.ok = false;
    filter.detail = "SECCOMP_RET_KILL_PROCESS unavailable: needs Linux 4.14+";
  } else {
    int mode = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
    filter.detail = std::string("filter mode and SECCOMP_RET_KILL_PROCESS available") +
                    (mode == 2 ? " (agentbox itself already runs under a filter; they stack)" : "");
  }
  return {filter, nnp};
}

std::vector<DoctorCheck> ProcessSyscallChecks() {
  std::vector<DoctorCheck> checks;
  long fd = ::syscall(SYS_pidfd_open, ::getpid(), 0);
  int err = fd >= 0 ? 0 : errno;
  if (fd >= 0) ::close(static_cast<int>(fd));
  checks.push_back(SyscallCheck("pidfd_open", "pidfd_open", err, "Linux 5.3+"));
  // A range above every possible fd: closes nothing, but tells whether the call exists.
  err = BadArgsErrno(SYS_close_range, UINT_MAX - 1, UINT_MAX, 0, 0, 0);
  checks.push_back(SyscallCheck("close_range", "close_range", err, "Linux 5.9+"));
  err = BadArgsErrno(SYS_clone3, 0, 0, 0, 0, 0);  // NULL args, size 0: EINVAL when present
  checks.push_back(
      SyscallCheck("clone3", "clone3", err, "Linux 5.3+ (5.7+ for CLONE_INTO_CGROUP)"));
  return checks;
}

DoctorCheck CgroupCheck() {
  const std::string layer = "cgroups (memory, pids, cpu)";
  auto host = DetectCgroupHost();
  if (!host.ok()) return {layer, false, host.status().message()};
  if (host->version == CgroupVersion::kV2) {
    return {layer, true, "cgroup v2; sandbox cgroups go under " + host->v2_parent};
  }
  std::string where;
  for (const auto& c : host->v1_controllers) where += (where.empty() ? "" : ", ") + c.parent;
  return {layer, true,
          "cgroup v1 (memory, pids, cpu, cpuacct, freezer); sandbox cgroups go "
          "under " +
              where};
}

}  // namespace

// The disk limit: what holds it for a workspace agentbox makes (docs/architecture.md).
DoctorCheck DiskQuotaCheck(const std::string& state_root) {
  DoctorCheck check;
  check.layer = "disk quota";
  check.detail = WorkspacePool::Describe(WorkspaceStorageDir(state_root), &check.ok) +
                 "; a directory you give: a project quota where its filesystem has them";
  return check;
}

std::vector<DoctorCheck> RunDoctorChecks(const std::string& state_root) {
  std::vector<DoctorCheck> checks = doctor_internal::NamespaceChecks();
  for (auto& c : doctor_internal::MountApiChecks()) checks.push_back(std::move(c));
  for (auto& c : SeccompChecks()) checks.push_back(std::move(c));
  for (auto& c : ProcessSyscallChecks()) checks.push_back(std::move(c));
  checks.push_back(CgroupCheck());
  if (!state_root.empty()) checks.push_back(DiskQuotaCheck(state_root));
  return checks;
}

}  // namespace agentbox
