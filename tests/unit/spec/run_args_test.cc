#include "spec/run_args.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

using Argv = std::vector<std::string>;

RunInvocation ParseOk(const Argv& args) {
  StatusOr<RunInvocation> inv = ParseRunArgs(args);
  EXPECT_TRUE(inv.ok()) << inv.status().message();
  return inv.ok() ? *inv : RunInvocation{};
}

std::string ErrorOf(const Argv& args) {
  StatusOr<RunInvocation> inv = ParseRunArgs(args);
  if (inv.ok()) return "OK";
  EXPECT_EQ(inv.status().code(), StatusCode::kInvalidArgument);
  return inv.status().message();
}

TEST(ParseRunArgsTest, EveryOption) {
  RunInvocation inv = ParseOk({"--workspace",
                               "/w",
                               "--rootfs=/r",
                               "--backend",
                               "native",
                               "--image",
                               "img",
                               "--policy",
                               "p.json",
                               "--timeout",
                               "2.5",
                               "--memory=1G",
                               "--pids",
                               "8",
                               "--cpus",
                               "0.5",
                               "--output-limit",
                               "1K",
                               "--disk-limit",
                               "2M",
                               "-e",
                               "A=1",
                               "--env=B=2",
                               "-eC=3",
                               "-w",
                               "/src",
                               "-i",
                               "--json",
                               "--",
                               "echo",
                               "hi"});
  SandboxSpec s = MergeSpec({}, inv.flags);
  EXPECT_EQ(s.workspace, "/w");
  EXPECT_EQ(s.rootfs, "/r");
  EXPECT_EQ(s.backend, BackendKind::kNative);
  EXPECT_EQ(s.image, "img");
  EXPECT_EQ(inv.policy_path, "p.json");
  EXPECT_DOUBLE_EQ(s.limits.timeout_seconds, 2.5);
  EXPECT_EQ(s.limits.memory_bytes, kGiB);
  EXPECT_EQ(s.limits.pids, 8u);
  EXPECT_DOUBLE_EQ(s.limits.cpus, 0.5);
  EXPECT_EQ(s.limits.output_bytes, 1024u);
  EXPECT_EQ(s.limits.disk_bytes, 2 * kMiB);
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(s.env, (Env{{"A", "1"}, {"B", "2"}, {"C", "3"}}));
  EXPECT_EQ(s.cwd, "/src");
  EXPECT_TRUE(s.pass_stdin);
  EXPECT_TRUE(inv.json);
  EXPECT_FALSE(inv.help);
  EXPECT_EQ(inv.argv, (Argv{"echo", "hi"}));
}

TEST(ParseRunArgsTest, LongFormsOfShortOptions) {
  RunInvocation inv = ParseOk({"--cwd=/x", "--stdin", "--env", "K=V", "true"});
  EXPECT_EQ(inv.flags.cwd, "/x");
  EXPECT_EQ(inv.flags.pass_stdin, true);
  EXPECT_EQ(inv.flags.env.size(), 1u);
}

TEST(ParseRunArgsTest, DefaultsWhenNoOptions) {
  RunInvocation inv = ParseOk({"ls"});
  EXPECT_FALSE(inv.json);
  EXPECT_FALSE(inv.policy_path);
  EXPECT_FALSE(inv.flags.memory_bytes);
  EXPECT_EQ(inv.argv, Argv{"ls"});
}

TEST(ParseRunArgsTest, FirstNonOptionStartsTheCommand) {
  RunInvocation inv = ParseOk({"--json", "ls", "-la", "--memory", "1G", "--"});
  EXPECT_EQ(inv.argv, (Argv{"ls", "-la", "--memory", "1G", "--"}));
  EXPECT_FALSE(inv.flags.memory_bytes);
}

TEST(ParseRunArgsTest, DoubleDashEndsOptions) {
  EXPECT_EQ(ParseOk({"--", "--json"}).argv, Argv{"--json"});
  EXPECT_EQ(ParseOk({"--", "--", "x"}).argv, (Argv{"--", "x"}));
  EXPECT_EQ(ParseOk({"-", "x"}).argv, (Argv{"-", "x"}));
}

TEST(ParseRunArgsTest, HelpWinsAndRunsNothing) {
  EXPECT_TRUE(ParseOk({"--help"}).help);
  EXPECT_TRUE(ParseOk({"-h"}).help);
  EXPECT_TRUE(ParseOk({"--json", "-h", "--memory", "bad"}).help);
  EXPECT_TRUE(ParseOk({"--help", "--", "ls"}).argv.empty());
}

TEST(ParseRunArgsTest, Errors) {
  EXPECT_EQ(ErrorOf({}), "run: no command given (usage: agentbox run [OPTIONS] -- COMMAND)");
  EXPECT_EQ(ErrorOf({"--json"}), ErrorOf({}));
  EXPECT_EQ(ErrorOf({"--json", "--"}), ErrorOf({}));
  EXPECT_EQ(ErrorOf({"--bogus", "ls"}), "unknown option \"--bogus\"");
  EXPECT_EQ(ErrorOf({"-x", "ls"}), "unknown option \"-x\"");
  EXPECT_EQ(ErrorOf({"-iz", "ls"}), "unknown option \"-iz\"");  // "-ih" is -i -h
  EXPECT_EQ(ErrorOf({"--memory"}), "option --memory needs a value (SIZE)");
  EXPECT_EQ(ErrorOf({"-e"}), "option -e needs a value (KEY[=VALUE])");
  EXPECT_EQ(ErrorOf({"--json=yes", "ls"}), "option --json takes no value");
  EXPECT_EQ(ErrorOf({"--memory", "lots", "ls"}),
            "--memory: expected a size like \"512M\" or a number of bytes, got \"lots\"");
  EXPECT_EQ(ErrorOf({"--timeout=0", "ls"}), "--timeout: must be more than 0 seconds, got \"0\"");
  EXPECT_EQ(ErrorOf({"--timeout", "-1", "ls"}),
            "--timeout: expected seconds like \"30\", \"1.5\" or \"5m\", got \"-1\"");
  EXPECT_EQ(ErrorOf({"--pids", "0", "ls"}), "--pids: must be at least 1, got 0");
  EXPECT_EQ(ErrorOf({"--cpus", "0", "ls"}), "--cpus: must be more than 0, got \"0\"");
  EXPECT_EQ(ErrorOf({"-w", "rel", "ls"}), "--cwd: must be an absolute path, got \"rel\"");
  EXPECT_EQ(ErrorOf({"-e", "", "ls"}), "--env: expected KEY or KEY=VALUE, got \"\"");
  EXPECT_EQ(ErrorOf({"--backend", "kvm", "ls"}),
            "--backend: expected \"native\", \"docker\" or \"kubernetes\", got \"kvm\"");
  EXPECT_EQ(ErrorOf({"--policy=", "ls"}), "--policy: must not be empty");
  EXPECT_EQ(ErrorOf({"--workspace="}), "--workspace: must not be empty");
}

// A created sandbox's policy is stored as JSON; a flag value that is not UTF-8 used to abort
// `agentbox create` after the box was made (found by tests/fuzz/cli_args_fuzzer).
TEST(ParseCreateArgsTest, TtlIsCreatesOnly) {
  auto c = ParseCreateArgs({"--ttl", "2h", "--name", "x"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->run.flags.ttl_seconds, 7200);
  EXPECT_EQ(c->name, "x");
  auto none = ParseCreateArgs({"--ttl=none"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->run.flags.ttl_seconds, 0);
  auto ms = ParseCreateArgs({"--ttl", "500ms"});
  ASSERT_FALSE(ms.ok());
  EXPECT_TRUE(ms.status().message().starts_with("--ttl: must be \"none\" or 1 to"))
      << ms.status().message();
  EXPECT_EQ(ParseCreateArgs({"--ttl"}).status().message(), "--ttl: missing value");
  EXPECT_FALSE(ParseRunArgs({"--ttl", "1h", "--", "true"}).ok());  // a run has its timeout
}

TEST(ParseCreateArgsTest, IdleTimeoutIsCreatesOnly) {
  auto c = ParseCreateArgs({"--idle-timeout", "30m", "--ttl", "2h"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->run.flags.idle_timeout_seconds, 1800);
  EXPECT_EQ(c->run.flags.ttl_seconds, 7200);
  EXPECT_TRUE(ParseCreateArgs({"--idle-timeout=none"}).ok());
  EXPECT_TRUE(ParseCreateArgs({"--idle-timeout", "0"})
                  .status()
                  .message()
                  .starts_with("--idle-timeout: must be"));
  EXPECT_FALSE(ParseRunArgs({"--idle-timeout", "1h", "--", "true"}).ok());
}

TEST(ParseCreateArgsTest, RefusesValuesThatAreNotUtf8) {
  auto create = [](const Argv& args) {
    auto c = ParseCreateArgs(args);
    return c.ok() ? std::string("OK") : c.status().message();
  };
  EXPECT_EQ(create({"-e", "K=\xe9"}),
            "--env: K: not valid UTF-8 (a sandbox's policy is stored as JSON)");
  EXPECT_EQ(create({"--workspace", "/srv/caf\xe9"}),
            "--workspace: not valid UTF-8 (a sandbox's policy is stored as JSON)");
  EXPECT_EQ(create({"-w", "/workspace/\xff"}),
            "--cwd: not valid UTF-8 (a sandbox's policy is stored as JSON)");
  EXPECT_EQ(create({"-e", "K=caf\xc3\xa9", "--workspace", "/srv/caf\xc3\xa9"}), "OK");
  EXPECT_TRUE(ParseRunArgs({"-e", "K=\xe9", "env"}).ok()) << "run stores nothing: any bytes";
}

TEST(ResolveRunSpecTest, NoPolicyIsDefaultsPlusFlags) {
  StatusOr<SandboxSpec> s = ResolveRunSpec(ParseOk({"--pids", "9", "ls"}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->limits.pids, 9u);
  EXPECT_EQ(s->limits.memory_bytes, 512 * kMiB);
}

TEST(ResolveRunSpecTest, MissingPolicyFails) {
  StatusOr<SandboxSpec> s = ResolveRunSpec(ParseOk({"--policy", "/nonexistent/p.json", "ls"}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/nonexistent/p.json"), std::string::npos);
}

TEST(RunHelpTest, MentionsEveryFlagAndTheDefaults) {
  // Wrapped lines joined: a default may sit on the next line of its flag's help.
  std::string usage;
  for (char c : FormatHelp(RunHelp())) {
    if (c == '\n' || c == ' ') {
      if (!usage.empty() && usage.back() != ' ') usage += ' ';
    } else {
      usage += c;
    }
  }
  for (const FlagDef& def : RunFlagDefs()) {
    EXPECT_NE(usage.find("--" + std::string(def.long_name)), std::string::npos) << def.long_name;
  }
  for (const char* s :
       {"-e, --env KEY[=VALUE]", "-w, --cwd DIR", "-i, --stdin", "-h, --help", "(default: 60)",
        "(default: 512M)", "(default: 256)", "(default: 1)", "(default: 1M)", "(default: 1G)",
        "(default: /workspace)", "(default: native)"}) {
    EXPECT_NE(usage.find(s), std::string::npos) << s;
  }
}

// -e KEY alone takes KEY from agentbox's own environment, as docker does; an unset one is left out.
TEST(ParseRunArgsTest, EnvKeyAloneTakesTheCallersValue) {
  const EnvLookup env = [](const std::string& key) -> std::optional<std::string> {
    if (key == "TOKEN") return "s3cret=x";
    return std::nullopt;
  };
  StatusOr<RunInvocation> inv =
      ParseRunArgs({"-e", "TOKEN", "-e", "UNSET", "-e", "A=1", "ls"}, env);
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  StatusOr<SandboxSpec> spec = ResolveRunSpec(*inv);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  const std::vector<std::pair<std::string, std::string>> want = {{"TOKEN", "s3cret=x"}, {"A", "1"}};
  EXPECT_EQ(spec->env, want);
  StatusOr<CreateInvocation> create = ParseCreateArgs({"-e", "TOKEN"}, env);
  ASSERT_TRUE(create.ok()) << create.status().message();
}

}  // namespace
}  // namespace agentbox

namespace agentbox {
namespace {

TEST(ParseRunArgsTest, PullIsAFlagOnlyAndGivesTheImage) {
  StatusOr<RunInvocation> inv =
      ParseRunArgs({"--pull", "--image", "localhost:5000/x:1", "--", "true"});
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  EXPECT_TRUE(inv->pull);
  auto spec = ResolveRunSpec(*inv);
  ASSERT_TRUE(spec.ok());
  EXPECT_TRUE(spec->image_given);
  EXPECT_EQ(spec->image, "localhost:5000/x:1");
  StatusOr<RunInvocation> plain = ParseRunArgs({"--", "true"});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->pull);
  auto default_spec = ResolveRunSpec(*plain);
  ASSERT_TRUE(default_spec.ok());
  EXPECT_FALSE(default_spec->image_given);  // native then uses the host's system dirs
}

}  // namespace
}  // namespace agentbox
