// Which rule of the seccomp table denied a call: how a notification the filter handed to the
// supervisor (policy/seccomp_program.h NotifyingSeccompProgram) is answered and named. Pure.
#pragma once

#include <cstdint>
#include <string>

#include "policy/seccomp_rules.h"

namespace agentbox {

// The first rule of SeccompRules(), in table order, that denies syscall `nr` of this build's
// architecture with `args`; nullptr when none does. The compiled filter denies exactly these
// calls (tests/unit/policy/seccomp_match_test.cc checks both against each other).
const SeccompRule* DenyingRule(int64_t nr, const uint64_t (&args)[6]);

// "unshare", "clone(CLONE_NEWUSER)": the rule as a report names it.
std::string SeccompRuleName(const SeccompRule& rule);

// "EPERM", "EAFNOSUPPORT", "ENOSYS" for the errno values the table uses; "E<n>" otherwise.
std::string ErrnoName(int err);

}  // namespace agentbox
