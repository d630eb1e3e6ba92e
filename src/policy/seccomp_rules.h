// SeccompRules: the deny list of docs/contract.md §2 as plain data.
//
// The one source for both the classic-BPF program the native backend installs (compiled at build
// time by tools/seccomp_gen.cc) and the Docker seccomp profile (seccomp_docker_profile.h).
// Pure: no OS headers; the few kernel constants needed are spelled out below, with their origin.
//
// Why a deny list over a default of ALLOW: agents run arbitrary tools (compilers, package
// managers, language runtimes, test suites) and an allow list breaks them one new syscall at a
// time. Strictness comes from the namespaces, the empty capability sets and no_new_privs; this
// list removes the kernel attack surface those do not cover, and the calls that could undo them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace agentbox {

enum class SeccompArgOp : uint8_t {
  kEqual,        // arg == value (all 64 bits)
  kMaskedEqual,  // (arg & mask) == value; a mask within 0xffffffff compares the low 32 bits only
};

struct SeccompArgCondition {
  uint8_t index = 0;  // syscall argument 0..5
  SeccompArgOp op = SeccompArgOp::kEqual;
  uint64_t mask = 0;  // kMaskedEqual only
  uint64_t value = 0;
};

// One denial: `syscall` fails with `errno_value` when `condition` holds (always, if none).
//
// At most one condition per rule, by design: several rules on one syscall are ORed, which is what
// every rule here needs. libseccomp 2.5 rejects two comparisons of one argument in a rule, and
// runc turns several conditions on one argument into an OR, so a single condition means the
// same thing in our BPF and in the Docker profile.
struct SeccompRule {
  std::string_view syscall;
  int errno_value = 0;
  std::optional<SeccompArgCondition> condition;
  std::string_view why;  // one line; cites the CVE or advisory where one exists
};

// Every rule, in table order. Never empty; static storage, free to call.
std::span<const SeccompRule> SeccompRules();

// Kernel constants the table uses (uapi values, identical on every Linux architecture).
namespace seccomp_consts {
// <linux/sched.h>
inline constexpr uint64_t kCloneNewTime = 0x00000080;
inline constexpr uint64_t kCloneNewNs = 0x00020000;
inline constexpr uint64_t kCloneNewCgroup = 0x02000000;
inline constexpr uint64_t kCloneNewUts = 0x04000000;
inline constexpr uint64_t kCloneNewIpc = 0x08000000;
inline constexpr uint64_t kCloneNewUser = 0x10000000;
inline constexpr uint64_t kCloneNewPid = 0x20000000;
inline constexpr uint64_t kCloneNewNet = 0x40000000;
// <sys/stat.h>
inline constexpr uint64_t kSetUidBit = 04000;
inline constexpr uint64_t kSetGidBit = 02000;
inline constexpr uint64_t kFileTypeMask = 0170000;  // S_IFMT
inline constexpr uint64_t kCharDevice = 0020000;    // S_IFCHR
inline constexpr uint64_t kBlockDevice = 0060000;   // S_IFBLK
// <sys/socket.h>
inline constexpr uint64_t kAfPacket = 17;
inline constexpr uint64_t kAfAlg = 38;
inline constexpr uint64_t kAfVsock = 40;
// <asm-generic/ioctls.h>
inline constexpr uint64_t kTiocsti = 0x5412;
inline constexpr uint64_t kTioclinux = 0x541C;
// <linux/btrfs.h>: _IOW(0x94, 1 / 14 / 23 / 24, a 4096-byte argument)
inline constexpr uint64_t kBtrfsSnapCreate = 0x50009401;
inline constexpr uint64_t kBtrfsSubvolCreate = 0x5000940e;
inline constexpr uint64_t kBtrfsSnapCreateV2 = 0x50009417;
inline constexpr uint64_t kBtrfsSubvolCreateV2 = 0x50009418;
// <linux/personality.h>: PER_LINUX, PER_LINUX32, UNAME26 and their union; 0xffffffff queries.
inline constexpr uint64_t kPersonalityQuery = 0xffffffff;
inline constexpr uint64_t kPersonalityAllowedBits = 0x0020008;
inline constexpr uint64_t kLow32Bits = 0xffffffff;
}  // namespace seccomp_consts

}  // namespace agentbox
