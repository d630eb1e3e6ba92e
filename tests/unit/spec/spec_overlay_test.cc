#include "spec/spec_overlay.h"

#include <gtest/gtest.h>

#include <cmath>

namespace agentbox {
namespace {

Status Set(const char* key, const char* text, SpecOverlay* o) {
  return SetFieldFromText(key, text, o);
}

TEST(SpecOverlayTest, EveryKeyFromText) {
  SpecOverlay o;
  ASSERT_TRUE(Set("backend", "docker", &o).ok());
  ASSERT_TRUE(Set("image", "alpine:3", &o).ok());
  ASSERT_TRUE(Set("workspace", "ws", &o).ok());
  ASSERT_TRUE(Set("rootfs", "/srv/root", &o).ok());
  ASSERT_TRUE(Set("timeout", "1.5", &o).ok());
  ASSERT_TRUE(Set("memory", "1G", &o).ok());
  ASSERT_TRUE(Set("pids", "64", &o).ok());
  ASSERT_TRUE(Set("cpus", "0.5", &o).ok());
  ASSERT_TRUE(Set("output_limit", "0", &o).ok());
  ASSERT_TRUE(Set("disk_limit", "10M", &o).ok());
  ASSERT_TRUE(Set("env", "A=b=c", &o).ok());
  ASSERT_TRUE(Set("cwd", "/workspace/src", &o).ok());
  ASSERT_TRUE(Set("stdin", "true", &o).ok());
  ASSERT_TRUE(Set("tmp_size", "32M", &o).ok());
  ASSERT_TRUE(Set("shm_size", "8M", &o).ok());
  ASSERT_TRUE(Set("open_files", "4096", &o).ok());
  SandboxSpec s = MergeSpec(SpecOverlay{}, o);
  EXPECT_EQ(s.backend, BackendKind::kDocker);
  EXPECT_EQ(s.image, "alpine:3");
  EXPECT_EQ(s.workspace, "ws");
  EXPECT_EQ(s.rootfs, "/srv/root");
  EXPECT_DOUBLE_EQ(s.limits.timeout_seconds, 1.5);
  EXPECT_EQ(s.limits.memory_bytes, kGiB);
  EXPECT_EQ(s.limits.pids, 64u);
  EXPECT_DOUBLE_EQ(s.limits.cpus, 0.5);
  EXPECT_EQ(s.limits.output_bytes, 0u);
  EXPECT_EQ(s.limits.disk_bytes, 10 * kMiB);
  ASSERT_EQ(s.env.size(), 1u);
  EXPECT_EQ(s.env[0], (std::pair<std::string, std::string>("A", "b=c")));
  EXPECT_EQ(s.cwd, "/workspace/src");
  EXPECT_TRUE(s.pass_stdin);
  EXPECT_EQ(s.tmp_bytes, 32 * kMiB);
  EXPECT_EQ(s.shm_bytes, 8 * kMiB);
  EXPECT_EQ(s.open_files, 4096u);
}

TEST(SpecOverlayTest, EmptyOverlaysGiveDefaults) {
  SandboxSpec s = MergeSpec({}, {});
  SandboxSpec d;
  EXPECT_EQ(s.backend, d.backend);
  EXPECT_EQ(s.limits.memory_bytes, d.limits.memory_bytes);
  EXPECT_EQ(s.cwd, d.cwd);
  EXPECT_FALSE(s.workspace.has_value());
  EXPECT_TRUE(s.env.empty());
}

TEST(SpecOverlayTest, RangeErrors) {
  SpecOverlay o;
  struct Case {
    const char* key;
    const char* text;
    const char* message;
  } cases[] = {
      {"memory", "1M", "must be at least 4M, got 1M"},
      {"pids", "0", "must be at least 1, got 0"},
      {"pids", "1000001", "must be at most 1000000, got 1000001"},
      {"cpus", "1025", "must be at most 1024, got 1025"},
      {"timeout", "604801", "must be at most 604800 seconds (one week), got 604801"},
      {"timeout", "8d", "must be at most 604800 seconds (one week), got 691200"},
      {"tmp_size", "0", "must be at least 1M, got 0"},
      {"shm_size", "1K", "must be at least 1M, got 1K"},
      {"open_files", "2", "must be at least 32, got 2"},
      {"open_files", "2000000", "must be at most 1048576, got 2000000"},
      {"cwd", "rel/dir", "must be an absolute path, got \"rel/dir\""},
      {"backend", "kvm", "expected \"native\", \"docker\" or \"kubernetes\", got \"kvm\""},
      {"image", "", "must not be empty"},
      {"workspace", "", "must not be empty"},
      {"env", "NOEQUALS", "expected KEY=VALUE, got \"NOEQUALS\""},
      {"env", "=v", "environment variable name must not be empty"},
      {"stdin", "yes", "expected true or false, got \"yes\""},
      {"nope", "1", "unknown key \"nope\""},
  };
  for (const Case& c : cases) {
    Status s = SetFieldFromText(c.key, c.text, &o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.key << "=" << c.text;
    EXPECT_EQ(s.message(), c.message) << c.key << "=" << c.text;
  }
  EXPECT_FALSE(o.memory_bytes || o.pids || o.cpus || o.timeout_seconds || o.cwd || o.backend);
  EXPECT_TRUE(o.env.empty());
}

TEST(SpecOverlayTest, BoundariesAccepted) {
  SpecOverlay o;
  EXPECT_TRUE(Set("memory", "4M", &o).ok());
  EXPECT_TRUE(Set("pids", "1", &o).ok());
  EXPECT_TRUE(Set("pids", "1000000", &o).ok());
  EXPECT_TRUE(Set("cpus", "1024", &o).ok());
  EXPECT_TRUE(Set("timeout", "604800", &o).ok());
  EXPECT_TRUE(Set("timeout", "1ms", &o).ok());
  EXPECT_TRUE(Set("cwd", "/", &o).ok());
}

TEST(SpecOverlayTest, TypedSettersRejectNanAndInfinity) {
  SpecOverlay o;
  EXPECT_FALSE(SetDurationField("timeout", std::nan(""), &o).ok());
  EXPECT_FALSE(SetDurationField("timeout", 1.0 / 0.0, &o).ok());
  EXPECT_FALSE(SetDurationField("timeout", -1, &o).ok());
  EXPECT_FALSE(SetDecimalField("cpus", std::nan(""), &o).ok());
  EXPECT_FALSE(SetDecimalField("cpus", 0, &o).ok());
  EXPECT_FALSE(o.timeout_seconds || o.cpus);
}

TEST(SpecOverlayTest, EnvNamesAndValues) {
  SpecOverlay o;
  EXPECT_FALSE(AddEnvVar("", "v", &o).ok());
  EXPECT_FALSE(AddEnvVar("A=B", "v", &o).ok());
  EXPECT_FALSE(AddEnvVar(std::string("A\0B", 3), "v", &o).ok());
  EXPECT_FALSE(AddEnvVar("A", std::string("v\0w", 3), &o).ok());
  EXPECT_TRUE(AddEnvVar("A", "", &o).ok());
  EXPECT_FALSE(SetStringField("cwd", std::string("/a\0b", 4), &o).ok());
}

TEST(MergeSpecTest, FlagsOverridePolicy) {
  SpecOverlay policy;
  SpecOverlay flags;
  ASSERT_TRUE(Set("memory", "1G", &policy).ok());
  ASSERT_TRUE(Set("pids", "32", &policy).ok());
  ASSERT_TRUE(Set("memory", "2G", &flags).ok());
  ASSERT_TRUE(Set("cwd", "/tmp", &flags).ok());
  SandboxSpec s = MergeSpec(policy, flags);
  EXPECT_EQ(s.limits.memory_bytes, 2 * kGiB);  // flag wins
  EXPECT_EQ(s.limits.pids, 32u);               // policy kept
  EXPECT_EQ(s.cwd, "/tmp");                    // flag only
  EXPECT_EQ(s.limits.timeout_seconds, 60);     // default
}

TEST(MergeSpecTest, EnvFlagsReplaceSameNameAndAppendOthers) {
  SpecOverlay policy;
  SpecOverlay flags;
  ASSERT_TRUE(Set("env", "A=1", &policy).ok());
  ASSERT_TRUE(Set("env", "B=2", &policy).ok());
  ASSERT_TRUE(Set("env", "B=3", &flags).ok());
  ASSERT_TRUE(Set("env", "C=4", &flags).ok());
  ASSERT_TRUE(Set("env", "C=5", &flags).ok());
  SandboxSpec s = MergeSpec(policy, flags);
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(s.env, (Env{{"A", "1"}, {"B", "3"}, {"C", "5"}}));
}

TEST(SpecOverlayTest, TtlIsNoneOrASecondToAYear) {
  SpecOverlay o;
  EXPECT_TRUE(SetFieldFromText("ttl", "none", &o).ok());
  EXPECT_EQ(o.ttl_seconds, 0);
  EXPECT_TRUE(SetFieldFromText("ttl", "1s", &o).ok());
  EXPECT_TRUE(SetFieldFromText("ttl", "366d", &o).ok());
  EXPECT_EQ(o.ttl_seconds, 366 * 86400);
  EXPECT_FALSE(SetFieldFromText("ttl", "367d", &o).ok());
  EXPECT_FALSE(SetFieldFromText("ttl", "0.5", &o).ok());
  EXPECT_FALSE(SetDurationField("ttl", 0, &o).ok());  // a JSON 0: "none" is said as "none"
  EXPECT_FALSE(SetFieldFromText("ttl", "0", &o).ok());
  EXPECT_FALSE(SetDurationField("ttl", std::nan(""), &o).ok());
  EXPECT_EQ(o.ttl_seconds, 366 * 86400);  // unchanged by a refusal
  SandboxSpec spec;
  ApplyOverlay(o, &spec);
  EXPECT_EQ(spec.ttl_seconds, 366 * 86400);
}

TEST(SpecOverlayTest, IdleTimeoutIsNoneOrASecondToAYear) {
  SpecOverlay o;
  EXPECT_TRUE(SetFieldFromText("idle_timeout", "none", &o).ok());
  EXPECT_EQ(o.idle_timeout_seconds, 0);
  EXPECT_TRUE(SetFieldFromText("idle_timeout", "30m", &o).ok());
  EXPECT_FALSE(SetFieldFromText("idle_timeout", "0", &o).ok());
  EXPECT_FALSE(SetFieldFromText("idle_timeout", "367d", &o).ok());
  EXPECT_EQ(o.idle_timeout_seconds, 1800);
  SandboxSpec spec;
  ApplyOverlay(o, &spec);
  EXPECT_EQ(spec.idle_timeout_seconds, 1800);
  EXPECT_EQ(spec.ttl_seconds, 0);  // each its own
}

TEST(SpecFieldsTest, ListsEveryKeyOnce) {
  EXPECT_EQ(SpecFields().size(), 28u);
  EXPECT_EQ(
      SpecFieldList(),
      "backend, image, runtime, workspace, rootfs, timeout, memory, pids, cpus, "
      "output_limit, disk_limit, env, cwd, stdin, tmp_size, shm_size, open_files, ttl, "
      "idle_timeout, allow_hosts, egress_connections, egress_bytes, session_log, max_snapshots, "
      "tz, locale, clock_start, random_seed");
  EXPECT_NE(FindSpecField("memory"), nullptr);
  EXPECT_EQ(FindSpecField("Memory"), nullptr);
}

TEST(SpecOverlayTest, PidsAskedForIsToldFromTheDefault) {
  // The kubernetes backend refuses an asked-for pids limit its pod cannot hold and reports the
  // default instead: the two must stay apart.
  SpecOverlay o;
  ASSERT_TRUE(SetFieldFromText("pids", "64", &o).ok());
  SandboxSpec s = MergeSpec(SpecOverlay{}, o);
  EXPECT_EQ(s.limits.pids, 64u);
  EXPECT_TRUE(s.pids_limit_explicit);
  EXPECT_FALSE(MergeSpec(SpecOverlay{}, SpecOverlay{}).pids_limit_explicit) << "the default";
}

}  // namespace
}  // namespace agentbox
