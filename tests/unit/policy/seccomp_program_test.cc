// DefaultSeccompProgram(), decided by the in-test BPF interpreter: the build-time BPF must do
// what the rule table says, for every rule, and the tricky cases by hand.
#include "policy/seccomp_program.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/btrfs.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "policy/seccomp_rules.h"
#include "seccomp_bpf_interpreter.h"

#if defined(__x86_64__)

namespace agentbox {
namespace {

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kKillProcess = SECCOMP_RET_KILL_PROCESS;
constexpr uint32_t kX32Bit = 0x40000000;
constexpr uint32_t kInterpreterFailed = 0xdeadbeef;
constexpr uint64_t kAtFdcwd = static_cast<uint64_t>(AT_FDCWD);

constexpr uint32_t Errno(int err) { return SECCOMP_RET_ERRNO | static_cast<uint32_t>(err); }

struct Call {
  uint64_t nr;
  std::array<uint64_t, 6> args{};
  uint32_t arch = AUDIT_ARCH_X86_64;
};

bpf_test::BpfVerdict Evaluate(const Call& call) {
  seccomp_data data{};
  data.nr = static_cast<int>(call.nr);
  data.arch = call.arch;
  data.instruction_pointer = 0x401000;
  for (size_t i = 0; i < 6; ++i) data.args[i] = call.args[i];
  const auto verdict = bpf_test::RunSeccompBpf(DefaultSeccompProgram(), data);
  if (!verdict) {
    ADD_FAILURE() << "interpreter failed on nr " << call.nr;
    return {kInterpreterFailed, 0};
  }
  return *verdict;
}

uint32_t Decide(const Call& call) { return Evaluate(call).action; }

TEST(SeccompProgram, NonEmptyEndsWithRetAndFitsTheKernelLimit) {
  const auto& program = DefaultSeccompProgram();
  ASSERT_FALSE(program.empty());
  EXPECT_EQ(BPF_CLASS(program.back().code), BPF_RET);
  EXPECT_LE(program.size(), size_t{BPF_MAXINSNS});
  // The first instruction loads seccomp_data.arch: the ABI is checked before anything else.
  EXPECT_EQ(program.front().code, BPF_LD | BPF_W | BPF_ABS);
  EXPECT_EQ(program.front().k, offsetof(seccomp_data, arch));
  EXPECT_EQ(&program, &DefaultSeccompProgram()) << "compiled once, then cached";
}

TEST(SeccompProgram, EveryJumpStaysInsideTheProgram) {
  const auto& program = DefaultSeccompProgram();
  for (size_t pc = 0; pc < program.size(); ++pc) {
    const BpfInstruction& in = program[pc];
    if (BPF_CLASS(in.code) != BPF_JMP) continue;
    const size_t longest = BPF_OP(in.code) == BPF_JA ? in.k : std::max(in.jt, in.jf);
    EXPECT_LT(pc + 1 + longest, program.size()) << "pc " << pc;
  }
}

TEST(SeccompProgram, EveryRuleOfTheTableDenies) {
  for (const SeccompRule& rule : SeccompRules()) {
    const int nr = seccomp_syscall_resolve_name(std::string(rule.syscall).c_str());
    ASSERT_GE(nr, 0) << rule.syscall;
    Call call{static_cast<uint64_t>(nr)};
    if (rule.condition) call.args[rule.condition->index] = rule.condition->value;
    EXPECT_EQ(Decide(call), Errno(rule.errno_value)) << rule.syscall << " " << rule.why;
  }
}

TEST(SeccompProgram, PtraceDeniedGetpidAllowed) {
  EXPECT_EQ(Decide({SYS_ptrace, {0 /* PTRACE_TRACEME */}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_getpid}), kAllow);
  EXPECT_EQ(Decide({SYS_read, {0, 0, 4096}}), kAllow);
  EXPECT_EQ(Decide({SYS_execve}), kAllow);
}

TEST(SeccompProgram, CloneDeniedOnlyWithNamespaceFlags) {
  EXPECT_EQ(Decide({SYS_clone, {CLONE_NEWUSER}}), Errno(EPERM));
  for (uint64_t flag : std::initializer_list<uint64_t>{
           CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
           CLONE_NEWCGROUP, uint64_t{0x80} /* CLONE_NEWTIME */}) {
    EXPECT_EQ(Decide({SYS_clone, {flag | SIGCHLD}}), Errno(EPERM)) << std::hex << flag;
  }
  EXPECT_EQ(Decide({SYS_clone, {SIGCHLD}}), kAllow) << "fork()";
  const uint64_t pthread_flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                                 CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |
                                 CLONE_CHILD_CLEARTID;
  EXPECT_EQ(Decide({SYS_clone, {pthread_flags}}), kAllow) << "pthread_create()";
  EXPECT_EQ(Decide({SYS_clone3}), Errno(ENOSYS)) << "glibc falls back to clone";
  EXPECT_EQ(Decide({SYS_unshare, {CLONE_NEWUSER}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_setns}), Errno(EPERM));
}

TEST(SeccompProgram, TerminalInjectionIoctlsDeniedOnTheLow32Bits) {
  EXPECT_EQ(Decide({SYS_ioctl, {0, 0x5412}}), Errno(EPERM)) << "TIOCSTI";
  EXPECT_EQ(Decide({SYS_ioctl, {0, 0x100005412}}), Errno(EPERM)) << "CVE-2019-10063";
  EXPECT_EQ(Decide({SYS_ioctl, {0, 0xffffffff00005412}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_ioctl, {0, 0x541C}}), Errno(EPERM)) << "TIOCLINUX";
  EXPECT_EQ(Decide({SYS_ioctl, {0, 0x10000541C}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_ioctl, {0, 0x5401}}), kAllow) << "TCGETS";
  EXPECT_EQ(Decide({SYS_ioctl, {0, 0x5413}}), kAllow) << "TIOCGWINSZ";
  EXPECT_EQ(Decide({SYS_ioctl, {0x5412, 0x5401, 0x5412}}), kAllow) << "only arg 1 is the request";
}

TEST(SeccompProgram, BtrfsSubvolumeAndSnapshotCreationDenied) {
  for (uint64_t request : {BTRFS_IOC_SNAP_CREATE, BTRFS_IOC_SUBVOL_CREATE, BTRFS_IOC_SNAP_CREATE_V2,
                           BTRFS_IOC_SUBVOL_CREATE_V2}) {
    EXPECT_EQ(Decide({SYS_ioctl, {3, request}}), Errno(EPERM)) << std::hex << request;
    EXPECT_EQ(Decide({SYS_ioctl, {3, request | 0x100000000}}), Errno(EPERM)) << std::hex << request;
  }
  EXPECT_EQ(Decide({SYS_ioctl, {3, FICLONE}}), kAllow) << "cp --reflink tries it first";
}

TEST(SeccompProgram, RiskySocketFamiliesDenied) {
  for (uint64_t family : std::initializer_list<uint64_t>{AF_PACKET, AF_ALG, AF_VSOCK}) {
    EXPECT_EQ(Decide({SYS_socket, {family, SOCK_RAW}}), Errno(EAFNOSUPPORT)) << family;
    EXPECT_EQ(Decide({SYS_socket, {family | 0x100000000, SOCK_RAW}}), Errno(EAFNOSUPPORT));
    EXPECT_EQ(Decide({SYS_socketpair, {family, SOCK_STREAM}}), Errno(EAFNOSUPPORT)) << family;
  }
  EXPECT_EQ(Decide({SYS_socket, {AF_INET, SOCK_STREAM}}), kAllow);
  EXPECT_EQ(Decide({SYS_socket, {AF_INET6, SOCK_DGRAM}}), kAllow);
  EXPECT_EQ(Decide({SYS_socket, {AF_UNIX, SOCK_STREAM}}), kAllow);
  EXPECT_EQ(Decide({SYS_socket, {AF_NETLINK, SOCK_RAW}}), kAllow);
  EXPECT_EQ(Decide({SYS_socketpair, {AF_UNIX, SOCK_STREAM}}), kAllow);
}

TEST(SeccompProgram, NoSetuidOrSetgidFileCanBeMade) {
  EXPECT_EQ(Decide({SYS_chmod, {0, 04755}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_chmod, {0, 02755}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_chmod, {0, 0755}}), kAllow);
  EXPECT_EQ(Decide({SYS_chmod, {0, 01777}}), kAllow) << "sticky bit is fine";
  EXPECT_EQ(Decide({SYS_fchmod, {3, 06755}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_fchmod, {3, 0644}}), kAllow);
  EXPECT_EQ(Decide({SYS_fchmodat, {kAtFdcwd, 0, 04700}}), Errno(EPERM));
  EXPECT_EQ(Decide({452 /* fchmodat2 */, {kAtFdcwd, 0, 02700, 0}}), Errno(EPERM));
  EXPECT_EQ(Decide({452 /* fchmodat2 */, {kAtFdcwd, 0, 0700, 0}}), kAllow);
  EXPECT_EQ(Decide({SYS_openat, {kAtFdcwd, 0, O_CREAT | O_WRONLY, 02755}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_openat, {kAtFdcwd, 0, O_CREAT | O_WRONLY, 0644}}), kAllow);
  EXPECT_EQ(Decide({SYS_open, {0, O_CREAT | O_WRONLY, 04755}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_open, {0, O_RDONLY, 0}}), kAllow);
  EXPECT_EQ(Decide({SYS_creat, {0, 06777}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_mkdir, {0, 02775}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_mkdir, {0, 0775}}), kAllow);
  EXPECT_EQ(Decide({SYS_mkdirat, {kAtFdcwd, 0, 04775}}), Errno(EPERM));
  EXPECT_EQ(Decide({SYS_openat2}), Errno(ENOSYS)) << "mode hidden in a struct";
  EXPECT_EQ(Decide({SYS_mknod, {0, S_IFREG | 04755}}), Errno(EPERM)) << "mknod makes files too";
  EXPECT_EQ(Decide({SYS_mknodat, {kAtFdcwd, 0, 02644}}), Errno(EPERM)) << "type 0 = regular";
  EXPECT_EQ(Decide({SYS_mknodat, {kAtFdcwd, 0, S_IFIFO | 06644}}), Errno(EPERM));
}

// mkfifo, make's job server and unix sockets need mknod; devices stay refused whatever else the
// mode holds (permission bits, high bits the kernel's 16-bit umode_t drops).
TEST(SeccompProgram, MknodMakesFifosSocketsAndFilesButNoDevices) {
  constexpr uint64_t kHighBits = 0xffffffff00010000;
  for (uint64_t type : std::initializer_list<uint64_t>{0, S_IFREG, S_IFIFO, S_IFSOCK}) {
    for (uint64_t perms : std::initializer_list<uint64_t>{0, 0600, 0644, 0777, 01777}) {
      EXPECT_EQ(Decide({SYS_mknod, {0, type | perms, 0}}), kAllow) << std::oct << type << perms;
      EXPECT_EQ(Decide({SYS_mknodat, {kAtFdcwd, 0, type | perms, 0}}), kAllow)
          << std::oct << type << perms;
    }
  }
  const uint64_t dev_1_1 = makedev(1, 1);
  for (uint64_t type : std::initializer_list<uint64_t>{S_IFCHR, S_IFBLK}) {
    for (uint64_t extra : std::initializer_list<uint64_t>{0, 0600, 0777, 01000, kHighBits}) {
      EXPECT_EQ(Decide({SYS_mknod, {0, type | extra, dev_1_1}}), Errno(EPERM))
          << std::oct << type << " " << std::hex << extra;
      EXPECT_EQ(Decide({SYS_mknodat, {kAtFdcwd, 0, type | extra, dev_1_1}}), Errno(EPERM))
          << std::oct << type << " " << std::hex << extra;
      EXPECT_EQ(Decide({SYS_mknodat, {3, 0, type | extra, 0}}), Errno(EPERM)) << "whiteout 0:0";
    }
  }
  EXPECT_EQ(Decide({SYS_mknodat, {S_IFCHR, S_IFCHR, S_IFIFO, S_IFCHR}}), kAllow)
      << "only the mode argument (2 of mknodat) counts";
  EXPECT_EQ(Decide({SYS_mknod, {S_IFBLK, S_IFIFO, S_IFBLK}}), kAllow)
      << "only the mode argument (1 of mknod) counts";
}

TEST(SeccompProgram, OnlySafePersonalitiesAllowed) {
  for (uint64_t persona : std::initializer_list<uint64_t>{0x0, 0x8, 0x20000, 0x20008, 0xffffffff,
                                                          0x100000000, 0x1ffffffff}) {
    EXPECT_EQ(Decide({SYS_personality, {persona}}), kAllow) << std::hex << persona;
  }
  for (uint64_t persona : std::initializer_list<uint64_t>{
           0x0040000 /* ADDR_NO_RANDOMIZE */, 0x0400000 /* READ_IMPLIES_EXEC */,
           0x0100000 /* MMAP_PAGE_ZERO */, 0x0040008, 0x1, 0x80000000, 0xfffffffe, 0x7fffffff,
           0xffffffff00040000}) {
    EXPECT_EQ(Decide({SYS_personality, {persona}}), Errno(EPERM)) << std::hex << persona;
  }
}

TEST(SeccompProgram, ForeignAbisAreKilled) {
  EXPECT_EQ(Decide({20 /* i386 getpid */, {}, AUDIT_ARCH_I386}), kKillProcess);
  EXPECT_EQ(Decide({26 /* i386 ptrace */, {}, AUDIT_ARCH_I386}), kKillProcess);
  EXPECT_EQ(Decide({kX32Bit | SYS_getpid}), kKillProcess);
  EXPECT_EQ(Decide({kX32Bit | 521 /* x32 ptrace */}), kKillProcess);
  EXPECT_EQ(Decide({SYS_getpid, {}, AUDIT_ARCH_AARCH64}), kKillProcess);
}

TEST(SeccompProgram, CommonSyscallsAreCheap) {
  // A binary tree over syscall numbers (SCMP_FLTATR_CTL_OPTIMIZE=2) keeps every allowed call
  // short; a linear list would walk every denied syscall first.
  for (uint64_t nr : std::initializer_list<uint64_t>{SYS_read, SYS_write, SYS_mmap, SYS_futex,
                                                     SYS_getpid, SYS_close}) {
    EXPECT_LE(Evaluate({nr}).steps, 16) << nr;
  }
}

}  // namespace
}  // namespace agentbox

#endif  // __x86_64__
