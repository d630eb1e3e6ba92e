// agentbox-agent's command line: the mode is chosen here, once, and nowhere else.
#include "agent/agent_options.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

TEST(AgentOptions, NoArgumentsIsTheNativeAgent) {
  auto options = ParseAgentArgs({});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->mode, AgentMode::kNative);
  EXPECT_TRUE(options->listen_path.empty());
}

TEST(AgentOptions, ListenIsTheContainerAgent) {
  auto options = ParseAgentArgs({"--listen", "/.agentbox/run/agent.sock"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->mode, AgentMode::kContainer);
  EXPECT_EQ(options->listen_path, "/.agentbox/run/agent.sock");
}

TEST(AgentOptions, AnythingElseIsAUsageError) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--listen"},
                                                                {"--listen", ""},
                                                                {"--listen", "/a", "/b"},
                                                                {"--bogus"},
                                                                {"/a"},
                                                                {"--listen=/a"}}) {
    auto options = ParseAgentArgs(args);
    EXPECT_FALSE(options.ok()) << args[0];
    if (!options.ok()) {
      EXPECT_EQ(options.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

}  // namespace
}  // namespace agentbox
