#include "spec/exec_args.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

TEST(ParseExecArgsTest, FlagsSandboxAndCommand) {
  auto inv = ParseExecArgs(
      {"--json", "--timeout", "1.5", "-e", "A=1", "-w", "/tmp", "-i", "box", "--", "ls", "-l"});
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_TRUE(inv->json);
  EXPECT_TRUE(inv->pass_stdin);
  EXPECT_EQ(inv->sandbox, "box");
  EXPECT_EQ(inv->argv, (std::vector<std::string>{"ls", "-l"}));
  EXPECT_DOUBLE_EQ(*inv->timeout_seconds, 1.5);
  EXPECT_EQ(*inv->cwd, "/tmp");
}

// The same one-week bound as the policy's timeout: a longer one once reached the agent wire
// as an out-of-range double-to-integer conversion.
TEST(ParseExecArgsTest, TimeoutIsBoundedLikeThePolicy) {
  auto week = ParseExecArgs({"--timeout", "7d", "box", "ls"});
  ASSERT_TRUE(week.ok()) << week.status().message();
  for (const char* bad : {"8d", "99999999999999999999d", "0"}) {
    auto inv = ParseExecArgs({"--timeout", bad, "box", "ls"});
    EXPECT_EQ(inv.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(ParseExecArgsTest, TerminalFlags) {
  auto inv = ParseExecArgs({"-it", "box", "sh"});
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_TRUE(inv->tty);
  EXPECT_TRUE(inv->pass_stdin);
  auto detached = ParseExecArgs({"-dt", "box", "sh"});
  EXPECT_EQ(detached.status().message(),
            "exec: -t cannot be used with -d (a background process has no terminal)");
}

}  // namespace
}  // namespace agentbox

namespace agentbox {
namespace {

TEST(ParseExecArgsTest, EnvKeyAloneTakesTheCallersValue) {
  const EnvLookup env = [](const std::string& key) -> std::optional<std::string> {
    if (key == "HOME") return "/root";
    return std::nullopt;
  };
  auto inv = ParseExecArgs({"-e", "HOME", "-e", "NOPE", "-e", "B=2", "box", "ls"}, env);
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  const std::vector<std::pair<std::string, std::string>> want = {{"HOME", "/root"}, {"B", "2"}};
  EXPECT_EQ(inv->env, want);
  EXPECT_EQ(ParseExecArgs({"-e", "=x", "box", "ls"}).status().code(), StatusCode::kInvalidArgument);
}

TEST(ExecHelpTest, EveryFlagWithItsDefault) {
  const std::string help = FormatHelp(ExecHelp());
  for (const FlagDef& def : ExecHelp().flags) {
    EXPECT_NE(help.find("--" + std::string(def.long_name)), std::string::npos) << def.long_name;
  }
  EXPECT_NE(help.find("(default: the sandbox's)"), std::string::npos) << help;
  EXPECT_NE(help.find("Ctrl-C"), std::string::npos);
}

}  // namespace
}  // namespace agentbox
