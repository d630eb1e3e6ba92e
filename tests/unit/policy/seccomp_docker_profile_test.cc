// The Docker profile is the rule table in Docker's format: same calls, same errno, same args.
#include "policy/seccomp_docker_profile.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "policy/seccomp_rules.h"

namespace agentbox {
namespace {

using nlohmann::json;

json FindEntry(const json& profile, const std::string& name, uint64_t arg_value_two) {
  for (const json& entry : profile["syscalls"]) {
    if (entry["names"] != json::array({name})) continue;
    if (entry["args"].empty() || entry["args"][0]["valueTwo"] == arg_value_two) return entry;
  }
  return json();
}

TEST(SeccompDockerProfile, HasDockersTopLevelShape) {
  const json profile = json::parse(DockerSeccompProfileJson());
  EXPECT_EQ(profile["defaultAction"], "SCMP_ACT_ALLOW");
#if defined(__x86_64__)
  EXPECT_EQ(profile["architectures"], json::array({"SCMP_ARCH_X86_64"}));
#endif
  ASSERT_TRUE(profile["syscalls"].is_array());
  EXPECT_EQ(profile["syscalls"].size(), SeccompRules().size() - 3)
      << "all rules but openat2's, unshare's and pidfd_getfd's, which the agent needs (the "
         "commands' own filter has them)";
  EXPECT_EQ(DockerSeccompProfileJson(), DockerSeccompProfileJson()) << "deterministic";
}

TEST(SeccompDockerProfile, EveryEntryIsAnErrnoDenialWithAtMostOneArg) {
  const json profile = json::parse(DockerSeccompProfileJson());
  for (const json& entry : profile["syscalls"]) {
    ASSERT_EQ(entry["names"].size(), 1u);
    EXPECT_EQ(entry["action"], "SCMP_ACT_ERRNO");
    EXPECT_GT(entry["errnoRet"].get<int>(), 0);
    // runc ORs several conditions on one index; one condition keeps the table's meaning.
    EXPECT_LE(entry["args"].size(), 1u) << entry.dump();
    EXPECT_FALSE(entry["comment"].get<std::string>().empty());
  }
}

TEST(SeccompDockerProfile, CarriesErrnoAndMaskedArgs) {
  const json profile = json::parse(DockerSeccompProfileJson());
  EXPECT_EQ(FindEntry(profile, "ptrace", 0)["errnoRet"], EPERM);
  EXPECT_EQ(FindEntry(profile, "clone3", 0)["errnoRet"], ENOSYS);

  const json tiocsti = FindEntry(profile, "ioctl", 0x5412);
  ASSERT_FALSE(tiocsti.is_null());
  EXPECT_EQ(tiocsti["args"][0], json({{"index", 1},
                                      {"value", 0xffffffff},
                                      {"valueTwo", 0x5412},
                                      {"op", "SCMP_CMP_MASKED_EQ"}}));

  const json newuser = FindEntry(profile, "clone", 0x10000000);
  ASSERT_FALSE(newuser.is_null());
  EXPECT_EQ(newuser["args"][0]["value"], 0x10000000) << "value is the mask";
  EXPECT_EQ(newuser["errnoRet"], EPERM);

  const json packet = FindEntry(profile, "socket", 17);
  ASSERT_FALSE(packet.is_null());
  EXPECT_EQ(packet["errnoRet"], EAFNOSUPPORT);
}

// The docker backend refuses device nodes by the same file-type bits, and allows FIFOs: no
// unconditional mknod entry is left that would break mkfifo in a container.
TEST(SeccompDockerProfile, MknodIsRefusedForDevicesOnly) {
  const json profile = json::parse(DockerSeccompProfileJson());
  for (const char* name : {"mknod", "mknodat"}) {
    const int index = std::string(name) == "mknod" ? 1 : 2;
    for (uint64_t type : {uint64_t{0020000}, uint64_t{0060000}}) {
      const json entry = FindEntry(profile, name, type);
      ASSERT_FALSE(entry.is_null()) << name << " " << type;
      EXPECT_EQ(entry["args"][0], json({{"index", index},
                                        {"value", 0170000},
                                        {"valueTwo", type},
                                        {"op", "SCMP_CMP_MASKED_EQ"}}));
      EXPECT_EQ(entry["errnoRet"], EPERM);
    }
    for (const json& entry : profile["syscalls"]) {
      if (entry["names"] == json::array({name})) {
        EXPECT_EQ(entry["args"].size(), 1u) << "an unconditional " << name << " rule";
      }
    }
  }
}

TEST(SeccompDockerProfile, LeavesOpenat2ToTheCommandsOwnFilter) {
  // The agent's file API needs openat2(RESOLVE_BENEATH) under this profile; the commands get
  // ENOSYS from agentbox's own filter, stacked on the profile by every exec.
  const json profile = json::parse(DockerSeccompProfileJson());
  EXPECT_TRUE(FindEntry(profile, "openat2", 0).is_null());
  bool in_table = false;
  for (const SeccompRule& rule : SeccompRules()) in_table |= rule.syscall == "openat2";
  EXPECT_TRUE(in_table) << "the native filter and the commands' filter keep it";
}

}  // namespace
}  // namespace agentbox
