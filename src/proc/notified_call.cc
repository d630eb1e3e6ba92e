#include "proc/notified_call.h"

#include <linux/audit.h>
#include <linux/filter.h>

#include <cstddef>

namespace agentbox {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
#else
#error "the seccomp watches name the native audit architecture"
#endif

}  // namespace

std::vector<BpfInstruction> WithNotifiedCall(unsigned nr,
                                             const std::vector<BpfInstruction>& program) {
  constexpr uint8_t kToProgram = 3;  // from the arch check: skip the three below
  std::vector<BpfInstruction> out = {
      {BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, arch)},
      {BPF_JMP | BPF_JEQ | BPF_K, 0, kToProgram, kNativeArch},
      {BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr)},
      {BPF_JMP | BPF_JEQ | BPF_K, 0, 1, nr},
      {BPF_RET | BPF_K, 0, 0, SECCOMP_RET_USER_NOTIF},
  };
  out.insert(out.end(), program.begin(), program.end());
  return out;
}

bool IsNativeCall(const struct seccomp_notif& req, unsigned nr) {
  return req.data.arch == kNativeArch && static_cast<unsigned>(req.data.nr) == nr;
}

}  // namespace agentbox
