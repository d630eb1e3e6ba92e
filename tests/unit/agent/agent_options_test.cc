// agentbox-agent's command line: the mode is chosen here, once, and nowhere else.
#include "agent/agent_options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

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

TEST(AgentOptions, DiskWatchComesFirstInEitherMode) {
  auto native = ParseAgentArgs({"--disk-watch"});
  ASSERT_TRUE(native.ok());
  EXPECT_EQ(native->mode, AgentMode::kNative);
  EXPECT_TRUE(native->disk_watch);
  auto container = ParseAgentArgs({"--disk-watch", "--listen", "/s"});
  ASSERT_TRUE(container.ok());
  EXPECT_EQ(container->mode, AgentMode::kContainer);
  EXPECT_EQ(container->listen_path, "/s");
  EXPECT_TRUE(container->disk_watch);
  EXPECT_FALSE(ParseAgentArgs({"--listen", "/s"})->disk_watch);
}

TEST(AgentOptions, UserIsTheImagesUserAndDefaultsTo1000) {
  EXPECT_EQ(ParseAgentArgs({})->user, (SandboxUser{1000, 1000}));
  auto native = ParseAgentArgs({"--user", "1001:50", "--disk-watch"});
  ASSERT_TRUE(native.ok()) << native.status().message();
  EXPECT_EQ(native->user, (SandboxUser{1001, 50}));
  EXPECT_TRUE(native->disk_watch);
  auto container = ParseAgentArgs({"--disk-watch", "--user", "1001:1001", "--listen", "/s"});
  ASSERT_TRUE(container.ok()) << container.status().message();
  EXPECT_EQ(container->mode, AgentMode::kContainer);
  EXPECT_EQ(container->user, (SandboxUser{1001, 1001}));
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--user"},
                                             {"--user", "0:0"},
                                             {"--user", "1001"},
                                             {"--user", "x:y", "--listen", "/s"}}) {
    EXPECT_FALSE(ParseAgentArgs(args).ok()) << args[0];
  }
}

TEST(AgentOptions, RandomSeedComesFirstInEitherMode) {
  EXPECT_FALSE(ParseAgentArgs({})->random_seed.has_value());
  auto native = ParseAgentArgs({"--random-seed", "18446744073709551615", "--disk-watch"});
  ASSERT_TRUE(native.ok()) << native.status().message();
  EXPECT_EQ(native->mode, AgentMode::kNative);
  EXPECT_EQ(native->random_seed, 18446744073709551615u);
  EXPECT_TRUE(native->disk_watch);
  auto container = ParseAgentArgs({"--user", "1001:50", "--random-seed", "0", "--listen", "/s"});
  ASSERT_TRUE(container.ok()) << container.status().message();
  EXPECT_EQ(container->mode, AgentMode::kContainer);
  EXPECT_EQ(container->random_seed, 0u);
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--random-seed"},
                                             {"--random-seed", "-1"},
                                             {"--random-seed", "x"},
                                             {"--random-seed", "18446744073709551616"},
                                             {"--random-seed", "1", "--random-seed", "1"},
                                             {"--listen", "/s", "--random-seed", "1"}}) {
    EXPECT_FALSE(ParseAgentArgs(args).ok()) << args.back();
  }
}

TEST(AgentOptions, OpenFilesComesBeforeTheListener) {
  EXPECT_EQ(ParseAgentArgs({})->open_files, 0u);  // 0: the inherited limit stays
  auto pod = ParseAgentArgs({"--random-seed", "7", "--open-files", "32", "--listen-tcp",
                             "0.0.0.0:7070", "--token-file", "/t"});
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  EXPECT_EQ(pod->mode, AgentMode::kContainer);
  EXPECT_EQ(pod->open_files, 32u);
  EXPECT_EQ(pod->random_seed, 7u);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--open-files"},
           {"--open-files", "0"},
           {"--open-files", "-1"},
           {"--open-files", "1", "--open-files", "1"},
           {"--listen-tcp", "0.0.0.0:7070", "--token-file", "/t", "--open-files", "32"}}) {
    EXPECT_FALSE(ParseAgentArgs(args).ok()) << args.back();
  }
}

TEST(AgentOptions, AnythingElseIsAUsageError) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--listen"},
                                                                {"--listen", ""},
                                                                {"--listen", "/a", "/b"},
                                                                {"--bogus"},
                                                                {"/a"},
                                                                {"--listen=/a"},
                                                                {"--listen", "/a", "--disk-watch"},
                                                                {"--disk-watch", "--disk-watch"}}) {
    auto options = ParseAgentArgs(args);
    EXPECT_FALSE(options.ok()) << args[0];
    if (!options.ok()) {
      EXPECT_EQ(options.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(AgentOptions, ListenTcpWithATokenFileIsTheContainerAgent) {
  auto options = ParseAgentArgs(
      {"--user", "1000:1000", "--listen-tcp", "0.0.0.0:7070", "--token-file", "/t/token"});
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_EQ(options->mode, AgentMode::kContainer);
  EXPECT_EQ(options->listen_tcp, "0.0.0.0:7070");
  EXPECT_EQ(options->token_file, "/t/token");
  EXPECT_TRUE(options->listen_path.empty());
  EXPECT_TRUE(ParseAgentArgs({"--listen-tcp", "[::]:7070", "--token-file", "/t"}).ok());
}

TEST(AgentOptions, TheTcpEgressRelayComesLastAndOnlyOverTcp) {
  auto options = ParseAgentArgs(
      {"--listen-tcp", "0.0.0.0:7070", "--token-file", "/t/token", "--egress-relay-tcp"});
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_TRUE(options->egress_relay_tcp);
  EXPECT_TRUE(options->egress_relay_path.empty());
  EXPECT_FALSE(
      ParseAgentArgs({"--listen-tcp", "0.0.0.0:7070", "--token-file", "/t"})->egress_relay_tcp);
  EXPECT_FALSE(ParseAgentArgs({"--listen", "/s", "--egress-relay-tcp"}).ok());
  EXPECT_FALSE(ParseAgentArgs({"--listen-tcp", "0.0.0.0:7070", "--token-file", "/t",
                               "--egress-relay-tcp", "--egress-relay-tcp"})
                   .ok());
}

TEST(AgentOptions, TokenByClaimReplacesTheTokenFile) {
  auto options =
      ParseAgentArgs({"--listen-tcp", "0.0.0.0:7070", "--token-by-claim", "--egress-relay-tcp"});
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_TRUE(options->token_by_claim);
  EXPECT_TRUE(options->token_file.empty());
  EXPECT_TRUE(options->egress_relay_tcp);
  EXPECT_FALSE(
      ParseAgentArgs({"--listen-tcp", "0.0.0.0:7070", "--token-file", "/t"})->token_by_claim);
  // One or the other, never both; and only over TCP.
  EXPECT_FALSE(
      ParseAgentArgs({"--listen-tcp", "0.0.0.0:7070", "--token-by-claim", "--token-file", "/t"})
          .ok());
  EXPECT_FALSE(ParseAgentArgs({"--listen", "/s", "--token-by-claim"}).ok());
}

TEST(AgentOptions, ListenTcpNeedsAnAddressAndATokenFile) {
  EXPECT_FALSE(ParseAgentArgs({"--listen-tcp"}).ok());
  EXPECT_FALSE(ParseAgentArgs({"--listen-tcp", "0.0.0.0:7070"}).ok());
  EXPECT_FALSE(ParseAgentArgs({"--listen-tcp", "0.0.0.0:7070", "--token-file"}).ok());
  EXPECT_FALSE(ParseAgentArgs({"--listen-tcp", "localhost:7070", "--token-file", "/t"}).ok());
  EXPECT_FALSE(
      ParseAgentArgs({"--listen-tcp", "0.0.0.0:7070", "--token-file", "/t", "--egress-relay", "/r"})
          .ok());
}

TEST(AgentOptions, TheTokenIsReadOnceAndMustBeLongEnough) {
  char dir[] = "/tmp/agentbox-token-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/token";
  auto write = [&](const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  AgentOptions options;
  options.token_file = path;
  EXPECT_EQ(ReadAgentToken(&options).code(), StatusCode::kInvalidArgument);  // missing
  write("");
  EXPECT_EQ(ReadAgentToken(&options).code(), StatusCode::kInvalidArgument);  // empty
  write("too-short\n");
  auto st = ReadAgentToken(&options);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("too short"), std::string::npos) << st.message();
  write("a-long-enough-agent-token\n");
  ASSERT_TRUE(ReadAgentToken(&options).ok());
  EXPECT_EQ(options.token, "a-long-enough-agent-token");
  std::remove(path.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace agentbox
