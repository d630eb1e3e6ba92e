// DenyingRule and NotifyingSeccompProgram against the compiled filter, decided by the in-test
// BPF interpreter: the supervisor must answer exactly the calls the filter hands it, each with
// the errno the kernel would have given.
#include "policy/seccomp_match.h"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/syscall.h>

#include <random>
#include <set>

#include "policy/seccomp_program.h"
#include "seccomp_bpf_interpreter.h"

#if defined(__x86_64__)

namespace agentbox {
namespace {

uint32_t Decide(const std::vector<BpfInstruction>& program, int nr, const uint64_t (&args)[6]) {
  seccomp_data data{};
  data.nr = nr;
  data.arch = AUDIT_ARCH_X86_64;
  for (int i = 0; i < 6; ++i) data.args[i] = args[i];
  auto verdict = bpf_test::RunSeccompBpf(program, data);
  EXPECT_TRUE(verdict.has_value());
  return verdict ? verdict->action : 0;
}

// What the plain filter does with a call must be what the listener answers for it.
void ExpectAgreement(int nr, const uint64_t (&args)[6]) {
  const uint32_t plain = Decide(DefaultSeccompProgram(), nr, args);
  const uint32_t notifying = Decide(NotifyingSeccompProgram(), nr, args);
  const SeccompRule* rule = DenyingRule(nr, args);
  if (plain == SECCOMP_RET_ALLOW) {
    EXPECT_EQ(rule, nullptr) << "nr " << nr;
    EXPECT_EQ(notifying, SECCOMP_RET_ALLOW) << "nr " << nr;
    return;
  }
  ASSERT_EQ(plain & SECCOMP_RET_ACTION_FULL, SECCOMP_RET_ERRNO) << "nr " << nr;
  ASSERT_NE(rule, nullptr) << "nr " << nr << " arg0 " << std::hex << args[0];
  EXPECT_EQ(static_cast<int>(plain & SECCOMP_RET_DATA), rule->errno_value) << rule->syscall;
  if (rule->errno_value == ENOSYS) {
    EXPECT_EQ(notifying, plain) << rule->syscall << ": a fallback stays the kernel's";
  } else {
    EXPECT_EQ(notifying, SECCOMP_RET_USER_NOTIF) << rule->syscall;
  }
}

TEST(SeccompMatch, EveryRuleOfTheTableIsFoundAndAnsweredWithItsErrno) {
  for (const SeccompRule& rule : SeccompRules()) {
    const int nr = seccomp_syscall_resolve_name(std::string(rule.syscall).c_str());
    ASSERT_GE(nr, 0) << rule.syscall;
    uint64_t args[6] = {};
    if (rule.condition) args[rule.condition->index] = rule.condition->value;
    const SeccompRule* found = DenyingRule(nr, args);
    ASSERT_NE(found, nullptr) << rule.syscall;
    EXPECT_EQ(found->errno_value, rule.errno_value);
    ExpectAgreement(nr, args);
  }
}

// Random arguments for every syscall the table names, and for some it does not: the matcher and
// the filter never disagree.
TEST(SeccompMatch, AgreesWithTheFilterOnRandomArguments) {
  std::set<int> numbers = {SYS_read, SYS_openat, SYS_getpid, SYS_clone, SYS_socket, SYS_ioctl};
  for (const SeccompRule& rule : SeccompRules()) {
    numbers.insert(seccomp_syscall_resolve_name(std::string(rule.syscall).c_str()));
  }
  std::mt19937_64 random(42);
  for (int nr : numbers) {
    for (int round = 0; round < 200; ++round) {
      uint64_t args[6];
      for (uint64_t& a : args) {
        // Mostly small values and single bits, where the conditions are; sometimes anything.
        switch (random() % 3) {
          case 0:
            a = random() % 64;
            break;
          case 1:
            a = uint64_t{1} << (random() % 64);
            break;
          default:
            a = random();
        }
      }
      ExpectAgreement(nr, args);
    }
  }
}

TEST(SeccompMatch, NamesAndErrnos) {
  uint64_t newuser[6] = {0x10000000 | 17};
  const SeccompRule* clone = DenyingRule(SYS_clone, newuser);
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(SeccompRuleName(*clone), "clone(CLONE_NEWUSER)");
  uint64_t none[6] = {};
  EXPECT_EQ(SeccompRuleName(*DenyingRule(SYS_unshare, none)), "unshare");
  EXPECT_EQ(DenyingRule(SYS_getpid, none), nullptr);
  EXPECT_EQ(ErrnoName(EPERM), "EPERM");
  EXPECT_EQ(ErrnoName(EAFNOSUPPORT), "EAFNOSUPPORT");
  EXPECT_EQ(ErrnoName(200), "E200");
}

TEST(SeccompMatch, TheNotifyingProgramChangesOnlyReturns) {
  const auto& plain = DefaultSeccompProgram();
  const auto& notifying = NotifyingSeccompProgram();
  ASSERT_EQ(plain.size(), notifying.size());
  for (size_t pc = 0; pc < plain.size(); ++pc) {
    EXPECT_EQ(plain[pc].code, notifying[pc].code);
    EXPECT_EQ(plain[pc].jt, notifying[pc].jt);
    EXPECT_EQ(plain[pc].jf, notifying[pc].jf);
    if (plain[pc].k != notifying[pc].k) {
      EXPECT_EQ(plain[pc].code, BPF_RET | BPF_K);
      EXPECT_EQ(notifying[pc].k, SECCOMP_RET_USER_NOTIF);
    }
  }
}

}  // namespace
}  // namespace agentbox

#endif  // __x86_64__
