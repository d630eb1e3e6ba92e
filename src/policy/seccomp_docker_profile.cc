#include "policy/seccomp_docker_profile.h"

#include <nlohmann/json.hpp>

#include "policy/seccomp_rules.h"

namespace agentbox {
namespace {

// Rules left out of the profile because the agent itself needs the call: a Docker profile binds
// every process of the container, the agent (its PID 1) included. The commands still get them:
// each exec installs agentbox's own compiled filter (the whole rule table) before it execs, and
// seccomp filters stack, so for them the strictest answer of the two wins.
//   openat2: the agent's file API resolves every path with RESOLVE_BENEATH (agent/path_beneath.h);
//            with ENOSYS every file operation would fail.
//   unshare: the agent starts by entering a user namespace of its own, which maps the
//            container's unprivileged host uid to 1000 (agent/container_setup.h).
//   pidfd_getfd: the fallocate watch makes a command's fallocate on the file the command
//            passed (proc/fallocate_watch.h).
bool LeftToTheCommandsFilter(const SeccompRule& rule) {
  return rule.syscall == "openat2" || rule.syscall == "unshare" || rule.syscall == "pidfd_getfd";
}

// libseccomp's masked compare takes the mask first: Docker's "value" is the mask and
// "valueTwo" the expected value, as in moby's own clone rule.
nlohmann::json ArgJson(const SeccompArgCondition& c) {
  const bool masked = c.op == SeccompArgOp::kMaskedEqual;
  return {{"index", c.index},
          {"value", masked ? c.mask : c.value},
          {"valueTwo", masked ? c.value : 0},
          {"op", masked ? "SCMP_CMP_MASKED_EQ" : "SCMP_CMP_EQ"}};
}

nlohmann::json RuleJson(const SeccompRule& rule) {
  nlohmann::json entry = {{"names", {std::string(rule.syscall)}},
                          {"action", "SCMP_ACT_ERRNO"},
                          {"errnoRet", rule.errno_value},
                          {"args", nlohmann::json::array()},
                          {"comment", std::string(rule.why)}};
  if (rule.condition) entry["args"].push_back(ArgJson(*rule.condition));
  return entry;
}

nlohmann::json NativeArchitectures() {
#if defined(__x86_64__)
  return {"SCMP_ARCH_X86_64"};
#elif defined(__aarch64__)
  return {"SCMP_ARCH_AARCH64"};
#else
#error "DockerSeccompProfileJson: add this architecture's SCMP_ARCH name"
#endif
}

}  // namespace

std::string DockerSeccompProfileJson() {
  nlohmann::json syscalls = nlohmann::json::array();
  for (const SeccompRule& rule : SeccompRules()) {
    if (!LeftToTheCommandsFilter(rule)) syscalls.push_back(RuleJson(rule));
  }
  // Default ALLOW: a deny list, for the reasons given in seccomp_rules.h.
  const nlohmann::json profile = {{"defaultAction", "SCMP_ACT_ALLOW"},
                                  {"architectures", NativeArchitectures()},
                                  {"syscalls", std::move(syscalls)}};
  return profile.dump();
}

}  // namespace agentbox
