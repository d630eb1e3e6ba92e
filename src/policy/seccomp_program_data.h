// The seccomp program compiled at build time (tools/seccomp_gen.cc writes its definition into
// the build directory). Private to policy/: everyone else calls DefaultSeccompProgram().
#pragma once

#include <cstdint>
#include <span>

#include "policy/seccomp_program.h"

namespace agentbox::seccomp_internal {

// The instructions, in static storage; never empty, ends with a RET.
std::span<const BpfInstruction> GeneratedSeccompProgram();

// Each rule's syscall number on this architecture, in SeccompRules() order; -1 where the
// architecture has no such call.
std::span<const int32_t> GeneratedRuleSyscallNumbers();

}  // namespace agentbox::seccomp_internal
