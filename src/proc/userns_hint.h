// Why the host refuses a user namespace, in words an operator can act on. Used by doctor and by
// every clone(CLONE_NEWUSER) whose failure ends a run, so `run` and `doctor` say the same thing.
#pragma once

#include <string>

#include "base/status.h"

namespace agentbox {

// The sysctl (or LSM/seccomp) that gates unprivileged user namespaces here, with the fix.
std::string UserNamespaceHint();

// `what` failed with `err` while making a user namespace: an error naming user namespaces, the
// errno and the hint ("... : No space left on device; user namespaces are refused here:
// user.max_user_namespaces is 0: sysctl -w ...").
Status UserNamespaceError(const std::string& what, int err);

}  // namespace agentbox
