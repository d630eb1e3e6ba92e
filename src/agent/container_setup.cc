#include "agent/container_setup.h"

#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "native/process_tree.h"
#include "spec/sandbox_spec.h"

namespace agentbox {
namespace {

constexpr const char* kExpected =
    "the agent expects `docker run -u 1000:1000 --cap-drop ALL --security-opt "
    "no-new-privileges`";

Status CheckIds() {
  uid_t ruid, euid, suid;
  gid_t rgid, egid, sgid;
  if (::getresuid(&ruid, &euid, &suid) != 0 || ::getresgid(&rgid, &egid, &sgid) != 0) {
    return ErrnoStatus("getresuid");
  }
  bool uids_ok = ruid == kSandboxUid && euid == kSandboxUid && suid == kSandboxUid;
  bool gids_ok = rgid == kSandboxGid && egid == kSandboxGid && sgid == kSandboxGid;
  if (!uids_ok || !gids_ok) {
    return PermissionDenied("runs as uid " + std::to_string(euid) + " gid " + std::to_string(egid) +
                            ", not " + std::to_string(kSandboxUid) + ":" +
                            std::to_string(kSandboxGid) + "; " + kExpected);
  }
  gid_t groups[64];
  int n = ::getgroups(64, groups);
  if (n < 0) return ErrnoStatus("getgroups");
  for (int i = 0; i < n; ++i) {
    if (groups[i] != kSandboxGid) {
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
