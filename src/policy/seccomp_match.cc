#include "policy/seccomp_match.h"

#include <cerrno>
#include <span>

#include "policy/seccomp_program_data.h"

namespace agentbox {
namespace {

bool Holds(const SeccompArgCondition& c, const uint64_t (&args)[6]) {
  if (c.index >= 6) return false;
  const uint64_t arg = args[c.index];
  return c.op == SeccompArgOp::kEqual ? arg == c.value : (arg & c.mask) == c.value;
}

}  // namespace

const SeccompRule* DenyingRule(int64_t nr, const uint64_t (&args)[6]) {
  const std::span<const SeccompRule> rules = SeccompRules();
  const std::span<const int32_t> numbers = seccomp_internal::GeneratedRuleSyscallNumbers();
  for (size_t i = 0; i < rules.size() && i < numbers.size(); ++i) {
    if (numbers[i] < 0 || numbers[i] != nr) continue;
    if (!rules[i].condition || Holds(*rules[i].condition, args)) return &rules[i];
  }
  return nullptr;
}

std::string SeccompRuleName(const SeccompRule& rule) {
  std::string name(rule.syscall);
  if (!rule.label.empty()) name += "(" + std::string(rule.label) + ")";
  return name;
}

std::string ErrnoName(int err) {
  switch (err) {
    case EPERM:
      return "EPERM";
    case EAFNOSUPPORT:
      return "EAFNOSUPPORT";
    case ENOSYS:
      return "ENOSYS";
    case EACCES:
      return "EACCES";
    case EROFS:
      return "EROFS";
    case ESRCH:
      return "ESRCH";
    default:
      return "E" + std::to_string(err);
  }
}

}  // namespace agentbox
