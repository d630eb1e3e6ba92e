#include "policy/seccomp_program.h"

#include "policy/seccomp_program_data.h"

namespace agentbox {

// The program is compiled from SeccompRules() at build time, so at run time this is one copy of
// a few hundred bytes, made once: nothing to compile between a user's command and its start.
const std::vector<BpfInstruction>& DefaultSeccompProgram() {
  static const std::vector<BpfInstruction> program = [] {
    const std::span<const BpfInstruction> data = seccomp_internal::GeneratedSeccompProgram();
    return std::vector<BpfInstruction>(data.begin(), data.end());
  }();
  return program;
}

}  // namespace agentbox
