#include "policy/seccomp_program.h"

#include <cerrno>

#include "policy/seccomp_program_data.h"

namespace agentbox {
namespace {

// <linux/filter.h> and <linux/seccomp.h> values (uapi, the same on every architecture).
constexpr uint16_t kBpfRetK = 0x06;  // BPF_RET | BPF_K
constexpr uint32_t kRetActionMask = 0xffff0000U;
constexpr uint32_t kRetDataMask = 0x0000ffffU;
constexpr uint32_t kRetErrno = 0x00050000U;
constexpr uint32_t kRetUserNotif = 0x7fc00000U;

}  // namespace

// The program is compiled from SeccompRules() at build time, so at run time this is one copy of
// a few hundred bytes, made once: nothing to compile between a user's command and its start.
const std::vector<BpfInstruction>& DefaultSeccompProgram() {
  static const std::vector<BpfInstruction> program = [] {
    const std::span<const BpfInstruction> data = seccomp_internal::GeneratedSeccompProgram();
    return std::vector<BpfInstruction>(data.begin(), data.end());
  }();
  return program;
}

// A rewrite of the compiled program's return values only: libseccomp emits one RET per action
// (rules with the same errno may share it), so each RET ERRNO(e) with e other than ENOSYS
// becomes RET USER_NOTIF, and no jump or comparison changes.
const std::vector<BpfInstruction>& NotifyingSeccompProgram() {
  static const std::vector<BpfInstruction> program = [] {
    std::vector<BpfInstruction> notifying = DefaultSeccompProgram();
    for (BpfInstruction& in : notifying) {
      if (in.code == kBpfRetK && (in.k & kRetActionMask) == kRetErrno &&
          (in.k & kRetDataMask) != ENOSYS) {
        in.k = kRetUserNotif;
      }
    }
    return notifying;
  }();
  return program;
}

}  // namespace agentbox
