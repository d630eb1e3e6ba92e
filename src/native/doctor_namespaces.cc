// Doctor checks for namespaces: tried for real in a forked child, which then exits and takes its
// namespaces and mounts with it.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "native/doctor_internal.h"
#include "proc/userns_hint.h"
#include "sys/file_util.h"

namespace agentbox::doctor_internal {
namespace {

enum Slot { kUser, kUidMap, kMnt, kPid, kIpc, kUts, kNet, kCgroup, kProc };

struct Namespace {
  Slot slot;
  int flag;
  const char* layer;
};
constexpr Namespace kNamespaces[] = {
    {kMnt, CLONE_NEWNS, "mount namespace"},    {kPid, CLONE_NEWPID, "pid namespace"},
    {kIpc, CLONE_NEWIPC, "ipc namespace"},     {kUts, CLONE_NEWUTS, "uts namespace"},
    {kNet, CLONE_NEWNET, "network namespace"}, {kCgroup, CLONE_NEWCGROUP, "cgroup namespace"},
};

struct ProbeArg {
  char uid_map[64];  // "0 <euid> 1", formatted by the parent: the child must not allocate
  size_t uid_map_len;
};

int WriteProcFile(const char* path, const char* data, size_t len) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = ::write(fd, data, len) == static_cast<ssize_t>(len) ? 0 : errno;
  ::close(fd);
  return err;
}

// Pid 1 of the new pid namespace mounts a fresh /proc in its private mount namespace, as the
// sandbox will. Fails when the host's /proc is partly over-mounted (mount_too_revealing).
int MountProcInNewPidNamespace() {
  pid_t pid = ::fork();
  if (pid < 0) return errno;
  if (pid == 0) {
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(errno);
    if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      ::_exit(errno);
    }
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : ECHILD;
}

void NamespaceProbe(ProbeResults& r, const void* raw_arg) {
  const auto* arg = static_cast<const ProbeArg*>(raw_arg);
  r[kUser] = ::unshare(CLONE_NEWUSER) == 0 ? 0 : errno;
  if (r[kUser] != 0) return;
  r[kUidMap] = WriteProcFile("/proc/self/uid_map", arg->uid_map, arg->uid_map_len);
  for (const Namespace& ns : kNamespaces) r[ns.slot] = ::unshare(ns.flag) == 0 ? 0 : errno;
  if (r[kMnt] == 0 && r[kPid] == 0) r[kProc] = MountProcInNewPidNamespace();
}

std::string Errno(int err) { return std::strerror(err); }

DoctorCheck UserNamespaceCheck(const ProbeResults& r) {
  const std::string layer = "user namespaces";
  if (r[kUser] != 0) {
    return {layer, false,
            "unshare(CLONE_NEWUSER) failed: " + Errno(r[kUser]) + "; " + UserNamespaceHint()};
  }
  if (r[kUidMap] != 0) {
    return {layer, false,
            "writing /proc/self/uid_map in a new user namespace failed: " + Errno(r[kUidMap]) +
                " (an LSM or the kernel refuses id maps)"};
  }
  return {layer, true, "unshare(CLONE_NEWUSER) and a uid_map work"};
}

DoctorCheck ProcCheck(const ProbeResults& r) {
  const std::string layer = "/proc in a new pid namespace";
  if (r[kProc] == 0) return {layer, true, "a fresh proc mount works"};
  if (r[kProc] == kNotTried)
    return {layer, false, "not tried: needs user, mount and pid namespaces"};
  return {layer, false,
          "mounting proc failed: " + Errno(r[kProc]) +
              " (the host /proc has over-mounted paths, e.g. a container's masked /proc entries, "
              "so the kernel refuses a new proc mount; run agentbox where /proc is not masked, "
              "e.g. docker --security-opt systempaths=unconfined)"};
}

}  // namespace

std::vector<DoctorCheck> NamespaceChecks() {
  ProbeArg arg{};
  int len = std::snprintf(arg.uid_map, sizeof(arg.uid_map), "0 %u 1", ::geteuid());
  arg.uid_map_len = static_cast<size_t>(len);
  auto probe = RunProbeInChild(NamespaceProbe, &arg);
  if (!probe.ok()) return {{"user namespaces", false, probe.status().message()}};
  const ProbeResults& r = *probe;
  std::vector<DoctorCheck> checks = {UserNamespaceCheck(r)};
  for (const Namespace& ns : kNamespaces) {
    int err = r[ns.slot];
    if (err == 0) {
      checks.push_back({ns.layer, true, "unshare works inside a user namespace"});
    } else if (err == kNotTried) {
      checks.push_back({ns.layer, false, "not tried: needs a user namespace"});
    } else {
      checks.push_back({ns.layer, false,
                        "unshare inside a user namespace failed: " + Errno(err) +
                            " (kernel built without it, or blocked by seccomp/LSM)"});
    }
  }
  checks.push_back(ProcCheck(r));
  return checks;
}

}  // namespace agentbox::doctor_internal
