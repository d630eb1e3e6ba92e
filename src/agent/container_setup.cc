#include "agent/container_setup.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "agent/agent_user.h"
#include "policy/image_user.h"
#include "proc/process_tree.h"
#include "proc/time_namespace.h"
#include "spec/sandbox_spec.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

constexpr const char* kExpected =
    "the agent expects `docker run -u 2100001000:2100001000 (or 1000:1000 under userns-remap) "
    "--cap-drop ALL --security-opt no-new-privileges`";

Status WriteSelf(const char* name, const std::string& text) {
  UniqueFd fd(::open((std::string("/proc/self/") + name).c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus(std::string("open /proc/self/") + name);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return ErrnoStatus(std::string("write /proc/self/") + name);
  }
  return OkStatus();
}

// A new user namespace gives its creator every capability in it and a full bounding set: none
// of it is needed (the namespace owns nothing; the container's mounts belong to the host's).
Status DropEveryCapability() {
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
      return ErrnoStatus("drop capability " + std::to_string(cap) + " from the bounding set");
    }
  }
  // gVisor has no ambient set (EINVAL): then there is nothing in it to clear.
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    return ErrnoStatus("clear the ambient capabilities");
  }
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &header, data) != 0) return ErrnoStatus("capset");
  return OkStatus();
}

Status CheckIds() {
  uid_t ruid, euid, suid;
  gid_t rgid, egid, sgid;
  if (::getresuid(&ruid, &euid, &suid) != 0 || ::getresgid(&rgid, &egid, &sgid) != 0) {
    return ErrnoStatus("getresuid");
  }
  const SandboxUser& want = AgentUser();
  bool uids_ok = ruid == want.uid && euid == want.uid && suid == want.uid;
  bool gids_ok = rgid == want.gid && egid == want.gid && sgid == want.gid;
  if (!uids_ok || !gids_ok) {
    return PermissionDenied("runs as uid " + std::to_string(euid) + " gid " + std::to_string(egid) +
                            ", not " + SandboxUserText(want) + "; " + kExpected);
  }
  gid_t groups[64];
  int n = ::getgroups(64, groups);
  if (n < 0) return ErrnoStatus("getgroups");
  for (int i = 0; i < n; ++i) {
    if (groups[i] != want.gid) {
      return PermissionDenied("has supplementary group " + std::to_string(groups[i]) + "; " +
                              kExpected);
    }
  }
  return OkStatus();
}

Status CheckNoCapabilities() {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return ErrnoStatus("capget");
  for (const auto& d : data) {
    if (d.effective || d.permitted || d.inheritable) {
      return PermissionDenied(std::string("holds capabilities; ") + kExpected);
    }
  }
  if (::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
    return PermissionDenied(std::string("runs without no_new_privs; ") + kExpected);
  }
  return OkStatus();
}

}  // namespace

Status EnterSandboxUserNamespace(std::optional<double> clock_start) {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  const SandboxUser& want = AgentUser();
  // Remapped already (the container runs as the user itself); 0: CheckIds refuses.
  if (uid == want.uid || uid == 0) {
    if (clock_start) {
      return Unavailable(
          "clock_start needs the agent's own user namespace, which a daemon with "
          "userns-remap does not give it");
    }
    return OkStatus();
  }
  if (::unshare(CLONE_NEWUSER) != 0) {
    return ErrnoStatus("enter a user namespace mapping host uid " + std::to_string(uid) + " to " +
                       std::to_string(want.uid) +
                       " (the kernel must allow unprivileged user namespaces)");
  }
  // Unprivileged: only our own ids may be mapped, and setgroups must be denied first.
  AB_RETURN_IF_ERROR(
      WriteSelf("uid_map", std::to_string(want.uid) + " " + std::to_string(uid) + " 1\n"));
  // gVisor has no /proc/PID/setgroups (and needs no "deny" before gid_map).
  if (Status st = WriteSelf("setgroups", "deny"); !st.ok() && errno != ENOENT) return st;
  AB_RETURN_IF_ERROR(
      WriteSelf("gid_map", std::to_string(want.gid) + " " + std::to_string(gid) + " 1\n"));
  if (clock_start && !EnterTimeNamespace(TimeOffsetsFor(*clock_start).c_str())) {
    return ErrnoStatus("make the time namespace of clock_start");
  }
  return DropEveryCapability();
}

Status CheckContainerIdentity() {
  AB_RETURN_IF_ERROR(CheckIds());
  AB_RETURN_IF_ERROR(CheckNoCapabilities());
  if (!ForEachChild([](pid_t, void*) {}, nullptr)) {
    return ErrnoStatus("read /proc (needed to find and kill each exec's processes)");
  }
  return OkStatus();
}

Status HardenContainerAgent() {
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return ErrnoStatus("prctl(PR_SET_DUMPABLE)");
  struct rlimit core = {0, 0};
  if (::setrlimit(RLIMIT_CORE, &core) != 0) return ErrnoStatus("setrlimit(RLIMIT_CORE)");
  return OkStatus();
}

}  // namespace agentbox
