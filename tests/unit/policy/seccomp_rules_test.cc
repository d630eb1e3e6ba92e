// The rule table itself: complete against docs/contract.md §2, well-formed, each rule explained.
#include "policy/seccomp_rules.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <set>
#include <string>
#include <string_view>

namespace agentbox {
namespace {

bool Denies(std::string_view name) {
  for (const SeccompRule& rule : SeccompRules()) {
    if (rule.syscall == name) return true;
  }
  return false;
}

TEST(SeccompRules, CoversEveryCallTheContractNames) {
  for (std::string_view name : {"io_uring_setup",
                                "io_uring_enter",
                                "io_uring_register",
                                "bpf",
                                "userfaultfd",
                                "keyctl",
                                "add_key",
                                "request_key",
                                "perf_event_open",
                                "ptrace",
                                "process_vm_readv",
                                "process_vm_writev",
                                "pidfd_getfd",
                                "kcmp",
                                "mount",
                                "umount2",
                                "pivot_root",
                                "chroot",
                                "move_mount",
                                "open_tree",
                                "fsopen",
                                "fsconfig",
                                "fsmount",
                                "fspick",
                                "mount_setattr",
                                "unshare",
                                "setns",
                                "clone",
                                "clone3",
                                "kexec_load",
                                "kexec_file_load",
                                "reboot",
                                "init_module",
                                "finit_module",
                                "delete_module",
                                "swapon",
                                "swapoff",
                                "syslog",
                                "settimeofday",
                                "clock_settime",
                                "clock_adjtime",
                                "adjtimex",
                                "personality",
                                "socket",
                                "socketpair",
                                "ioctl",
                                "name_to_handle_at",
                                "open_by_handle_at",
                                "acct",
                                "quotactl",
                                "lookup_dcookie",
                                "iopl",
                                "ioperm",
                                "vhangup",
                                "uselib",
                                "nfsservctl",
                                "fanotify_init",
                                "sethostname",
                                "setdomainname",
                                "mknod",
                                "mknodat",
                                "chmod",
                                "fchmod",
                                "fchmodat",
                                "fchmodat2",
                                "creat",
                                "open",
                                "openat",
                                "mkdir",
                                "mkdirat",
                                "openat2"}) {
    EXPECT_TRUE(Denies(name)) << name;
  }
}

TEST(SeccompRules, EveryRuleIsWellFormedAndExplained) {
  for (const SeccompRule& rule : SeccompRules()) {
    EXPECT_FALSE(rule.syscall.empty());
    EXPECT_FALSE(rule.why.empty()) << rule.syscall;
    EXPECT_GT(rule.errno_value, 0) << rule.syscall;
    EXPECT_LT(rule.errno_value, 4096) << rule.syscall;
    if (!rule.condition) continue;
    EXPECT_LE(rule.condition->index, 5) << rule.syscall;
    if (rule.condition->op == SeccompArgOp::kMaskedEqual) {
      // Every masked rule compares the low 32 bits only: the kernel truncates these arguments,
      // so high bits must not let a caller slip past (CVE-2019-10063).
      EXPECT_EQ(rule.condition->mask >> 32, 0u) << rule.syscall;
      EXPECT_EQ(rule.condition->value & ~rule.condition->mask, 0u) << "unsatisfiable";
    }
  }
}

TEST(SeccompRules, UnconditionalRulesAreNotRepeated) {
  std::set<std::string_view> seen;
  for (const SeccompRule& rule : SeccompRules()) {
    if (rule.condition) continue;
    EXPECT_TRUE(seen.insert(rule.syscall).second) << rule.syscall;
  }
}

TEST(SeccompRules, SetIdBitsCheckedOnTheModeArgumentOfEveryModeSettingCall) {
  const std::set<std::pair<std::string_view, uint8_t>> expected = {
      {"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"creat", 1},
      {"open", 2},  {"openat", 3}, {"mkdir", 1},    {"mkdirat", 2}};
  for (const auto& [name, index] : expected) {
    std::set<uint64_t> bits;
    for (const SeccompRule& rule : SeccompRules()) {
      if (rule.syscall != name || !rule.condition) continue;
      EXPECT_EQ(rule.condition->index, index) << name;
      EXPECT_EQ(rule.errno_value, EPERM) << name;
      bits.insert(rule.condition->mask);
    }
    EXPECT_EQ(bits, (std::set<uint64_t>{04000, 02000})) << name;
  }
}

TEST(SeccompRules, CallsWithUnreadableArgumentsFailWithEnosys) {
  // ENOSYS, not EPERM: glibc treats it as "old kernel" and falls back to a call we can inspect.
  for (const SeccompRule& rule : SeccompRules()) {
    if (rule.syscall == "clone3" || rule.syscall == "openat2") {
      EXPECT_EQ(rule.errno_value, ENOSYS) << rule.syscall;
      EXPECT_FALSE(rule.condition.has_value());
    }
  }
}

}  // namespace
}  // namespace agentbox
