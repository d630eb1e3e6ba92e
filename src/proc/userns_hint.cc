#include "proc/userns_hint.h"

#include "sys/file_util.h"

namespace agentbox {

std::string UserNamespaceHint() {
  auto sysctl = [](const char* path) {
    auto text = ReadFile(path);
    return text.ok() ? text->substr(0, text->find('\n')) : std::string();
  };
  if (sysctl("/proc/sys/user/max_user_namespaces") == "0") {
    return "user.max_user_namespaces is 0: sysctl -w user.max_user_namespaces=15000";
  }
  if (sysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0") {
    return "kernel.unprivileged_userns_clone is 0: sysctl -w kernel.unprivileged_userns_clone=1";
  }
  if (sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1") {
    return "AppArmor restricts unprivileged user namespaces: sysctl -w "
           "kernel.apparmor_restrict_unprivileged_userns=0, or give agentbox an AppArmor profile "
           "that allows userns";
  }
  return "no sysctl forbids it here, so a seccomp profile (e.g. a container runtime's default) or "
         "an LSM blocks unshare(2): run agentbox with a profile that allows it";
}

Status UserNamespaceError(const std::string& what, int err) {
  // The host's refusal is not agentbox's bug: unavailable (HTTP 503), whatever the errno.
  return Status(StatusCode::kUnavailable,
                ErrnoStatus(what, err).message() +
                    "; user namespaces are refused here: " + UserNamespaceHint());
}

}  // namespace agentbox
