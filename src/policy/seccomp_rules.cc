#include "policy/seccomp_rules.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>

namespace agentbox {
namespace {

using namespace seccomp_consts;  // NOLINT(google-build-using-namespace): the table reads better

constexpr SeccompRule Deny(std::string_view name, std::string_view why) {
  return {name, EPERM, std::nullopt, why};
}

constexpr SeccompRule Fail(std::string_view name, int err, std::string_view why) {
  return {name, err, std::nullopt, why};
}

constexpr SeccompRule DenyIf(std::string_view name, int err, SeccompArgCondition cond,
                             std::string_view why) {
  return {name, err, cond, why};
}

// (arg & bit) == bit: the flag is set.
constexpr SeccompArgCondition BitSet(uint8_t index, uint64_t bit) {
  return {index, SeccompArgOp::kMaskedEqual, bit, bit};
}

// The file-type bits of a mode are `type`. The kernel reads mknod's mode as a 16-bit umode_t;
// the mask keeps only bits 12..15, so no high bit changes what the kernel and the filter see.
constexpr SeccompArgCondition FileTypeIs(uint8_t index, uint64_t type) {
  return {index, SeccompArgOp::kMaskedEqual, kFileTypeMask, type};
}

// Equality on the low 32 bits: the kernel truncates int arguments, so 0x100005412 is TIOCSTI
// too (CVE-2019-10063, flatpak's filter compared all 64 bits and was bypassed that way).
constexpr SeccompArgCondition Low32Equal(uint8_t index, uint64_t value) {
  return {index, SeccompArgOp::kMaskedEqual, kLow32Bits, value};
}

constexpr std::string_view kNamespaceWhy =
    "new namespaces reach kernel code unprivileged users otherwise cannot (CVE-2022-0185, "
    "CVE-2022-0492, CVE-2023-32233); the sandbox already has every namespace it needs";
constexpr std::string_view kSetIdWhy =
    "docs/contract.md §2: the sandbox never creates a setuid/setgid file (host owner's privileges)";

constexpr auto kFixedRules = std::to_array<SeccompRule>({
    // io_uring: a steady source of LPEs (CVE-2022-29582, CVE-2023-2598) and its ops (openat,
    // connect) bypass seccomp entirely; Google disabled it on ChromeOS, Android and servers.
    Deny("io_uring_setup", "io_uring: LPE source (CVE-2023-2598) and bypasses seccomp"),
    Deny("io_uring_enter", "io_uring: LPE source (CVE-2022-29582) and bypasses seccomp"),
    Deny("io_uring_register", "io_uring: LPE source (CVE-2023-2598) and bypasses seccomp"),
    Deny("bpf", "eBPF verifier bugs give kernel r/w (CVE-2021-3490, CVE-2022-23222)"),
    Deny("userfaultfd", "the usual race-widening tool of kernel exploits; off by default in 5.11+"),
    Deny("keyctl", "keyrings are not namespaced; refcount LPE CVE-2016-0728"),
    Deny("add_key", "keyrings are not namespaced; CVE-2016-0728"),
    Deny("request_key", "keyrings are not namespaced; CVE-2016-0728"),
    Deny("perf_event_open", "kernel info leaks and LPEs (CVE-2013-2094, CVE-2023-2235)"),
    // Cross-process access: PTRACE_TRACEME LPE CVE-2019-13272; the rest are ptrace-mode peers.
    Deny("ptrace", "CVE-2019-13272; reading other processes' memory"),
    Deny("process_vm_readv", "ptrace-class read of another process's memory"),
    Deny("process_vm_writev", "ptrace-class write of another process's memory"),
    Deny("process_madvise", "ptrace-class influence over another process's memory"),
    Deny("pidfd_getfd", "steals file descriptors from another process"),
    Deny("kcmp", "ptrace-class; compares kernel object pointers (KASLR hint)"),
    // Mounts would undo the read-only root and reach filesystem parsers (CVE-2022-0185 is in
    // fsconfig's legacy_parse_param).
    Deny("mount", "would undo the read-only root and mount plan"),
    Deny("umount2", "would reveal what the mount plan hides"),
    Deny("pivot_root", "would replace the sandbox root"),
    Deny("chroot", "chroot escapes with an open directory fd; no legitimate use inside"),
    Deny("move_mount", "new mount API: same power as mount"),
    Deny("open_tree", "new mount API: clones mounts"),
    Deny("fsopen", "new mount API: reaches filesystem parsers (CVE-2022-0185)"),
    Deny("fsconfig", "CVE-2022-0185 heap overflow in legacy_parse_param"),
    Deny("fsmount", "new mount API: same power as mount"),
    Deny("fspick", "new mount API: reconfigures existing mounts"),
    Deny("mount_setattr", "would make read-only mounts writable"),
    Deny("unshare", kNamespaceWhy),
    Deny("setns", kNamespaceWhy),
    DenyIf("clone", EPERM, BitSet(0, kCloneNewNs), kNamespaceWhy),
    DenyIf("clone", EPERM, BitSet(0, kCloneNewUts), kNamespaceWhy),
    DenyIf("clone", EPERM, BitSet(0, kCloneNewIpc), kNamespaceWhy),
    DenyIf("clone", EPERM, BitSet(0, kCloneNewUser), kNamespaceWhy),
    DenyIf("clone", EPERM, BitSet(0, kCloneNewPid), kNamespaceWhy),
    DenyIf("clone", EPERM, BitSet(0, kCloneNewNet), kNamespaceWhy),
    DenyIf("clone", EPERM, BitSet(0, kCloneNewCgroup), kNamespaceWhy),
    DenyIf("clone", EPERM, BitSet(0, kCloneNewTime), kNamespaceWhy),
    // clone3 passes its flags in a struct seccomp cannot read; ENOSYS makes glibc (>= 2.34) fall
    // back to clone, whose flags we check above. Docker/runc do the same.
    Fail("clone3", ENOSYS, "flags unreadable by seccomp; ENOSYS -> glibc falls back to clone"),
    Deny("kexec_load", "replaces the host kernel"),
    Deny("kexec_file_load", "replaces the host kernel"),
    Deny("reboot", "on the host: reboots it; in our PID namespace: would kill the agent (PID 1)"),
    Deny("init_module", "loads host kernel code"),
    Deny("finit_module", "loads host kernel code"),
    Deny("delete_module", "unloads host kernel code"),
    Deny("swapon", "host-wide swap configuration"),
    Deny("swapoff", "host-wide swap configuration"),
    Deny("syslog", "kernel log leaks kernel addresses (defeats KASLR; cf. dmesg_restrict)"),
    Deny("settimeofday", "the wall clock is host-wide (time namespaces cover only monotonic)"),
    Deny("clock_settime", "the wall clock is host-wide"),
    Deny("clock_adjtime", "the wall clock is host-wide"),
    Deny("adjtimex", "the wall clock is host-wide"),
    // Rarely-audited socket families with a record of LPEs.
    DenyIf("socket", EAFNOSUPPORT, Low32Equal(0, kAfAlg),
           "AF_ALG: crypto API LPEs (CVE-2017-17805, CVE-2019-8912)"),
    DenyIf("socket", EAFNOSUPPORT, Low32Equal(0, kAfVsock), "AF_VSOCK: LPE CVE-2021-26708"),
    DenyIf("socket", EAFNOSUPPORT, Low32Equal(0, kAfPacket),
           "AF_PACKET: LPEs CVE-2016-8655, CVE-2017-7308, CVE-2020-14386"),
    DenyIf("socketpair", EAFNOSUPPORT, Low32Equal(0, kAfAlg), "AF_ALG, as socket"),
    DenyIf("socketpair", EAFNOSUPPORT, Low32Equal(0, kAfVsock), "AF_VSOCK, as socket"),
    DenyIf("socketpair", EAFNOSUPPORT, Low32Equal(0, kAfPacket), "AF_PACKET, as socket"),
    // Terminal injection: TIOCSTI pushes input into the controlling terminal, i.e. the host
    // shell (CVE-2016-7545, CVE-2017-5226; high-bit bypass CVE-2019-10063).
    DenyIf("ioctl", EPERM, Low32Equal(1, kTiocsti), "TIOCSTI: CVE-2017-5226, CVE-2019-10063"),
    DenyIf("ioctl", EPERM, Low32Equal(1, kTioclinux), "TIOCLINUX: console paste CVE-2023-28100"),
    // A btrfs subvolume is a qgroup of its own: one made inside a workspace of agentbox's pool
    // would hold bytes the workspace's disk quota does not count (any user may make one).
    DenyIf("ioctl", EPERM, Low32Equal(1, kBtrfsSubvolCreate), "btrfs subvolume: quota escape"),
    DenyIf("ioctl", EPERM, Low32Equal(1, kBtrfsSubvolCreateV2), "btrfs subvolume: quota escape"),
    DenyIf("ioctl", EPERM, Low32Equal(1, kBtrfsSnapCreate), "btrfs snapshot: quota escape"),
    DenyIf("ioctl", EPERM, Low32Equal(1, kBtrfsSnapCreateV2), "btrfs snapshot: quota escape"),
    Deny("name_to_handle_at", "file handles bypass the mount plan ('shocker' escape, 2014)"),
    Deny("open_by_handle_at", "opens any inode on the filesystem ('shocker' escape, 2014)"),
    Deny("acct", "host-wide process accounting"),
    Deny("quotactl", "host-wide quota configuration"),
    Deny("quotactl_fd", "host-wide quota configuration"),
    Deny("lookup_dcookie", "oprofile interface; leaks kernel path data"),
    Deny("iopl", "raw hardware port I/O"),
    Deny("ioperm", "raw hardware port I/O"),
    Deny("vhangup", "hangs up the host's terminal"),
    Deny("uselib", "obsolete a.out loader; race LPE CVE-2004-1235"),
    Deny("nfsservctl", "obsolete kernel NFS server control"),
    Deny("fanotify_init", "filesystem-wide event monitoring"),
    Deny("sethostname", "hostname stays 'sandbox' (docs/contract.md §2)"),
    Deny("setdomainname", "domain name stays fixed"),
    // mknod makes FIFOs (mkfifo, make's job server, shell scripts, test harnesses), sockets and
    // regular files (type 0 or S_IFREG) as everyday work: only device nodes are refused. The
    // user namespace refuses them too (CAP_MKNOD counts only in the initial one); this is the
    // second wall, and it also keeps the overlayfs whiteout (char 0:0, allowed unprivileged
    // since Linux 5.8) out. Any other type the kernel rejects itself (EINVAL, or EPERM for a
    // directory).
    DenyIf("mknod", EPERM, FileTypeIs(1, kCharDevice),
           "char devices would bypass the minimal /dev"),
    DenyIf("mknod", EPERM, FileTypeIs(1, kBlockDevice), "block devices: raw disks"),
    DenyIf("mknod", EPERM, BitSet(1, kSetUidBit), kSetIdWhy),
    DenyIf("mknod", EPERM, BitSet(1, kSetGidBit), kSetIdWhy),
    DenyIf("mknodat", EPERM, FileTypeIs(2, kCharDevice),
           "char devices would bypass the minimal /dev"),
    DenyIf("mknodat", EPERM, FileTypeIs(2, kBlockDevice), "block devices: raw disks"),
    DenyIf("mknodat", EPERM, BitSet(2, kSetUidBit), kSetIdWhy),
    DenyIf("mknodat", EPERM, BitSet(2, kSetGidBit), kSetIdWhy),
    // No setuid/setgid file, ever: mode checks on every call that sets a mode.
    DenyIf("chmod", EPERM, BitSet(1, kSetUidBit), kSetIdWhy),
    DenyIf("chmod", EPERM, BitSet(1, kSetGidBit), kSetIdWhy),
    DenyIf("fchmod", EPERM, BitSet(1, kSetUidBit), kSetIdWhy),
    DenyIf("fchmod", EPERM, BitSet(1, kSetGidBit), kSetIdWhy),
    DenyIf("fchmodat", EPERM, BitSet(2, kSetUidBit), kSetIdWhy),
    DenyIf("fchmodat", EPERM, BitSet(2, kSetGidBit), kSetIdWhy),
    DenyIf("fchmodat2", EPERM, BitSet(2, kSetUidBit), kSetIdWhy),
    DenyIf("fchmodat2", EPERM, BitSet(2, kSetGidBit), kSetIdWhy),
    DenyIf("creat", EPERM, BitSet(1, kSetUidBit), kSetIdWhy),
    DenyIf("creat", EPERM, BitSet(1, kSetGidBit), kSetIdWhy),
    DenyIf("open", EPERM, BitSet(2, kSetUidBit), kSetIdWhy),
    DenyIf("open", EPERM, BitSet(2, kSetGidBit), kSetIdWhy),
    DenyIf("openat", EPERM, BitSet(3, kSetUidBit), kSetIdWhy),
    DenyIf("openat", EPERM, BitSet(3, kSetGidBit), kSetIdWhy),
    DenyIf("mkdir", EPERM, BitSet(1, kSetUidBit), kSetIdWhy),
    DenyIf("mkdir", EPERM, BitSet(1, kSetGidBit), kSetIdWhy),
    DenyIf("mkdirat", EPERM, BitSet(2, kSetUidBit), kSetIdWhy),
    DenyIf("mkdirat", EPERM, BitSet(2, kSetGidBit), kSetIdWhy),
    // openat2 passes its mode in a struct seccomp cannot read; glibc falls back to openat.
    Fail("openat2", ENOSYS, "mode unreadable by seccomp; ENOSYS -> callers fall back to openat"),
});

// personality(): allow only Docker's safe values 0, PER_LINUX32 (8), UNAME26 (0x20000), their
// union, and the query 0xffffffff; deny every other value of the low 32 bits (the kernel takes
// an unsigned int). ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC and MMAP_PAGE_ZERO weaken exploit
// mitigations (CVE-2009-1895). One masked condition per rule (see SeccompRule), so the allow set
// is spelled as a union of denials:
//   bit 31 set and some bit b < 31 clear    -> not the query, deny   (31 rules)
//   bit 31 clear and some bit b outside 3/17 -> a flag we refuse     (29 rules)
// What remains: bit 31 clear with only bits 3/17 (the four safe values), and 0xffffffff.
constexpr uint64_t kBit31 = 0x80000000;
constexpr size_t kPersonalityRuleCount = 31 + 29;
constexpr std::string_view kPersonalityWhy =
    "only Docker's safe personas; others disable ASLR/NX or map page 0 (CVE-2009-1895)";

constexpr std::array<SeccompRule, kPersonalityRuleCount> PersonalityRules() {
  std::array<SeccompRule, kPersonalityRuleCount> rules{};
  size_t n = 0;
  for (int b = 0; b < 31; ++b) {
    const uint64_t bit = uint64_t{1} << b;
    rules[n++] = DenyIf("personality", EPERM, {0, SeccompArgOp::kMaskedEqual, kBit31 | bit, kBit31},
                        kPersonalityWhy);
  }
  for (int b = 0; b < 31; ++b) {
    const uint64_t bit = uint64_t{1} << b;
    if ((bit & kPersonalityAllowedBits) != 0) continue;
    rules[n++] = DenyIf("personality", EPERM, {0, SeccompArgOp::kMaskedEqual, kBit31 | bit, bit},
                        kPersonalityWhy);
  }
  return rules;
}

template <typename T, size_t N, size_t M>
constexpr std::array<T, N + M> Concat(const std::array<T, N>& a, const std::array<T, M>& b) {
  std::array<T, N + M> out{};
  for (size_t i = 0; i < N; ++i) out[i] = a[i];
  for (size_t i = 0; i < M; ++i) out[N + i] = b[i];
  return out;
}

constexpr auto kAllRules = Concat(kFixedRules, PersonalityRules());
// A miscounted generator would leave default (nameless) rules behind.
static_assert(std::ranges::none_of(kAllRules,
                                   [](const SeccompRule& r) { return r.syscall.empty(); }));

}  // namespace

std::span<const SeccompRule> SeccompRules() { return kAllRules; }

}  // namespace agentbox
