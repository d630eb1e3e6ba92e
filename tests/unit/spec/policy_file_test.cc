#include "spec/policy_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace agentbox {
namespace {

// A temp file removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    char tmpl[] = "/tmp/agentbox-policy-XXXXXX";
    const int fd = mkstemp(tmpl);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = tmpl;
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ErrorOf(const std::string& json) {
  StatusOr<SpecOverlay> o = ParsePolicyJson(json, "policy.json");
  if (o.ok()) return "OK";
  EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
  return o.status().message();
}

TEST(PolicyFileTest, EveryKey) {
  TempFile f(R"({
    "backend": "native", "image": "img:1", "workspace": "/srv/ws", "rootfs": "/srv/root",
    "timeout": 2.5, "memory": "1G", "pids": 64, "cpus": 1.5, "output_limit": 4096,
    "disk_limit": "2G", "env": {"CI": "1", "LANG": "C"}, "cwd": "/workspace/x",
    "stdin": true, "tmp_size": 33554432, "shm_size": "8M", "open_files": 512
  })");
  StatusOr<SpecOverlay> o = LoadPolicyFile(f.path());
  ASSERT_TRUE(o.ok()) << o.status().message();
  SandboxSpec s = MergeSpec(*o, {});
  EXPECT_EQ(s.backend, BackendKind::kNative);
  EXPECT_EQ(s.image, "img:1");
  EXPECT_EQ(s.workspace, "/srv/ws");
  EXPECT_EQ(s.rootfs, "/srv/root");
  EXPECT_DOUBLE_EQ(s.limits.timeout_seconds, 2.5);
  EXPECT_EQ(s.limits.memory_bytes, kGiB);
  EXPECT_EQ(s.limits.pids, 64u);
  EXPECT_DOUBLE_EQ(s.limits.cpus, 1.5);
  EXPECT_EQ(s.limits.output_bytes, 4096u);
  EXPECT_EQ(s.limits.disk_bytes, 2 * kGiB);
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(s.env, (Env{{"CI", "1"}, {"LANG", "C"}}));  // file order kept
  EXPECT_EQ(s.cwd, "/workspace/x");
  EXPECT_TRUE(s.pass_stdin);
  EXPECT_EQ(s.tmp_bytes, 32 * kMiB);
  EXPECT_EQ(s.shm_bytes, 8 * kMiB);
  EXPECT_EQ(s.open_files, 512u);
}

TEST(PolicyFileTest, EmptyObjectIsDefaults) {
  StatusOr<SpecOverlay> o = ParsePolicyJson("{}", "p.json");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(MergeSpec(*o, {}).limits.memory_bytes, SandboxSpec().limits.memory_bytes);
}

TEST(PolicyFileTest, NumbersAndStringsForNumericKeys) {
  EXPECT_EQ(ErrorOf(R"({"timeout": "5m", "cpus": "0.25", "pids": "10", "memory": 1e9})"), "OK");
  EXPECT_EQ(ErrorOf(R"({"timeout": 30})"), "OK");
  StatusOr<SpecOverlay> o = ParsePolicyJson(R"({"memory": 1e9, "timeout": "5m"})", "p");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(*o->memory_bytes, 1000000000u);
  EXPECT_DOUBLE_EQ(*o->timeout_seconds, 300);
}

// random_seed: any 64-bit value, as a JSON number or a string (a JavaScript client cannot hold
// one above 2^53 as a number); unset unless given; anything else refused.
TEST(PolicyFileTest, RandomSeedIsAnyUnsigned64BitValue) {
  StatusOr<SpecOverlay> none = ParsePolicyJson("{}", "p");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->random_seed.has_value());
  for (const char* text : {R"({"random_seed": 0})", R"({"random_seed": "0"})"}) {
    StatusOr<SpecOverlay> o = ParsePolicyJson(text, "p");
    ASSERT_TRUE(o.ok()) << text;
    EXPECT_EQ(o->random_seed, 0u);
  }
  StatusOr<SpecOverlay> big = ParsePolicyJson(R"({"random_seed": "18446744073709551615"})", "p");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->random_seed, 18446744073709551615u);
  SandboxSpec spec;
  ApplyOverlay(*big, &spec);
  EXPECT_EQ(spec.random_seed, 18446744073709551615u);
  EXPECT_EQ(ErrorOf(R"({"random_seed": -1})"),
            "policy.json: key \"random_seed\": expected a whole number like 256, got -1");
  EXPECT_EQ(ErrorOf(R"({"random_seed": 1.5})"),
            "policy.json: key \"random_seed\": expected a whole number like 256, got 1.5");
  EXPECT_EQ(ErrorOf(R"({"random_seed": "18446744073709551616"})"),
            "policy.json: key \"random_seed\": number \"18446744073709551616\" is too large");
  EXPECT_NE(ErrorOf(R"({"random_seed": "0x10"})"), "OK");
  EXPECT_NE(ErrorOf(R"({"random_seed": true})"), "OK");
}

TEST(PolicyFileTest, WrongTypes) {
  EXPECT_EQ(ErrorOf(R"({"memory": true})"),
            "policy.json: key \"memory\": expected a size like \"512M\" or a number of bytes, "
            "got true");
  EXPECT_EQ(ErrorOf(R"({"memory": -5})"),
            "policy.json: key \"memory\": expected a size like \"512M\" or a number of bytes, "
            "got -5");
  EXPECT_EQ(ErrorOf(R"({"memory": 1.5})"),
            "policy.json: key \"memory\": expected a size like \"512M\" or a number of bytes, "
            "got 1.5");
  EXPECT_EQ(ErrorOf(R"({"pids": 2.5})"),
            "policy.json: key \"pids\": expected a whole number like 256, got 2.5");
  EXPECT_EQ(ErrorOf(R"({"pids": [1]})"),
            "policy.json: key \"pids\": expected a whole number like 256, got [1]");
  EXPECT_EQ(ErrorOf(R"({"timeout": null})"),
            "policy.json: key \"timeout\": expected seconds like 30 or \"1.5\", got null");
  EXPECT_EQ(ErrorOf(R"({"cpus": {}})"),
            "policy.json: key \"cpus\": expected a number like 1 or 0.5, got {}");
  EXPECT_EQ(ErrorOf(R"({"stdin": "true"})"),
            "policy.json: key \"stdin\": expected true or false, got \"true\"");
  EXPECT_EQ(ErrorOf(R"({"cwd": 5})"), "policy.json: key \"cwd\": expected a string, got 5");
  EXPECT_EQ(ErrorOf(R"({"backend": null})"),
            "policy.json: key \"backend\": expected a string, got null");
  EXPECT_EQ(ErrorOf(R"({"env": ["A=1"]})"),
            "policy.json: key \"env\": expected an object of strings like {\"CI\": \"1\"}, "
            "got [\"A=1\"]");
  EXPECT_EQ(ErrorOf(R"({"env": {"A": 1}})"),
            "policy.json: key \"env\": expected a string for variable \"A\", got 1");
}

TEST(PolicyFileTest, OutOfRange) {
  EXPECT_EQ(ErrorOf(R"({"memory": "1M"})"),
            "policy.json: key \"memory\": must be at least 4M, got 1M");
  EXPECT_EQ(ErrorOf(R"({"pids": 0})"), "policy.json: key \"pids\": must be at least 1, got 0");
  EXPECT_EQ(ErrorOf(R"({"timeout": 0})"),
            "policy.json: key \"timeout\": must be more than 0 seconds");
  EXPECT_EQ(ErrorOf(R"({"timeout": -1})"),
            "policy.json: key \"timeout\": must be more than 0 seconds");
  EXPECT_EQ(ErrorOf(R"({"timeout": 1e300})"),
            "policy.json: key \"timeout\": must be at most 604800 seconds (one week), got 1e+300");
  EXPECT_EQ(ErrorOf(R"({"cpus": 0})"), "policy.json: key \"cpus\": must be more than 0");
  EXPECT_EQ(ErrorOf(R"({"cwd": "work"})"),
            "policy.json: key \"cwd\": must be an absolute path, got \"work\"");
  EXPECT_EQ(ErrorOf(R"({"env": {"": "x"}})"),
            "policy.json: key \"env\": environment variable name must not be empty");
  EXPECT_EQ(ErrorOf(R"({"env": {"A=B": "x"}})"),
            "policy.json: key \"env\": environment variable name \"A=B\" must not contain '=' "
            "or NUL");
  EXPECT_EQ(ErrorOf(R"({"env": {"A": "x\u0000y"}})"),
            "policy.json: key \"env\": value of environment variable \"A\" must not contain NUL");
  EXPECT_EQ(ErrorOf(R"({"memory": "lots"})"),
            "policy.json: key \"memory\": expected a size like \"512M\" or a number of bytes, "
            "got \"lots\"");
  EXPECT_EQ(ErrorOf(R"({"pids": 18446744073709551616})"),
            "policy.json: key \"pids\": expected a whole number like 256, got "
            "1.8446744073709552e+19");
  EXPECT_EQ(ErrorOf(R"({"pids": 18446744073709551615})"),
            "policy.json: key \"pids\": must be at most 1000000, got 18446744073709551615");
}

TEST(PolicyFileTest, UnknownAndDuplicateKeys) {
  EXPECT_EQ(
      ErrorOf(R"({"memroy": "1G"})"),
      "policy.json: unknown key \"memroy\" (known keys: backend, image, runtime, workspace, "
      "rootfs, timeout, memory, pids, cpus, output_limit, disk_limit, env, cwd, stdin, tmp_size, "
      "shm_size, open_files, ttl, idle_timeout, allow_hosts, egress_connections, egress_bytes, "
      "session_log, max_snapshots, tz, locale, clock_start, random_seed)");
  EXPECT_EQ(ErrorOf(R"({"memory": "1G", "memory": "2G"})"),
            "policy.json: key \"memory\" appears twice");
  EXPECT_EQ(ErrorOf(R"({"env": {"A": "1", "A": "2"}})"), "policy.json: key \"A\" appears twice");
  EXPECT_EQ(ErrorOf(R"({"env": {"A": "1"}, "cwd": "/x"})"), "OK");
}

TEST(PolicyFileTest, MalformedJsonNamesPosition) {
  EXPECT_EQ(ErrorOf("{\"memory\": \"1G\",\n}"),
            "policy.json: invalid JSON at line 2, column 1: syntax error while parsing object key "
            "- unexpected '}'; expected string literal");
  EXPECT_NE(ErrorOf("").find("policy.json: invalid JSON at line 1, column 1"), std::string::npos);
  EXPECT_NE(ErrorOf("{\"a\": \"\xFF\"}").find("policy.json: invalid JSON at line 1"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("[]"), "policy.json: expected a JSON object at the top level, got []");
  EXPECT_EQ(ErrorOf("42"), "policy.json: expected a JSON object at the top level, got 42");
}

TEST(PolicyFileTest, LongValuesAreCutInMessages) {
  const std::string err = ErrorOf(R"({"stdin": ")" + std::string(500, 'x') + R"("})");
  EXPECT_LT(err.size(), 150u);
  EXPECT_NE(err.find("..."), std::string::npos);
}

TEST(PolicyFileTest, FileErrorsNameThePath) {
  StatusOr<SpecOverlay> missing = LoadPolicyFile("/nonexistent/agentbox/policy.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/agentbox/policy.json"),
            std::string::npos);
  StatusOr<SpecOverlay> dir = LoadPolicyFile("/");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("/"), std::string::npos);
  TempFile bad(R"({"pids": "many"})");
  StatusOr<SpecOverlay> o = LoadPolicyFile(bad.path());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            bad.path() + ": key \"pids\": expected a whole number like \"256\", got \"many\"");
}

TEST(PolicyFileTest, HugeFileRejected) {
  TempFile big("{\"image\": \"" + std::string(2 * 1024 * 1024, 'a') + "\"}");
  StatusOr<SpecOverlay> o = LoadPolicyFile(big.path());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), big.path() + ": policy file is larger than 1M");
}

}  // namespace
}  // namespace agentbox

namespace agentbox {
namespace {

TEST(PolicyFileTest, AllowHostsIsAListOfPatternsInCanonicalForm) {
  auto o = ParsePolicyJson(
      R"({"allow_hosts": ["PyPI.org", "*.example.com:443", "pypi.org", "198.51.100.0/24"],
          "egress_connections": 16, "egress_bytes": "100M"})",
      "policy.json");
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->allow_hosts,
            (std::vector<std::string>{"pypi.org", "*.example.com:443", "198.51.100.0/24"}));
  SpecOverlay flags;
  ASSERT_TRUE(SetFieldFromText("allow_hosts", "index.test:3141", &flags).ok());
  SandboxSpec spec = MergeSpec(*o, flags);
  EXPECT_EQ(spec.allow_hosts.size(), 4u);  // flags add to the file's list
  EXPECT_EQ(spec.allow_hosts.back(), "index.test:3141");
  EXPECT_EQ(spec.limits.egress_connections, 16u);
  EXPECT_EQ(spec.limits.egress_bytes, 100 * kMiB);
  EXPECT_NE(ErrorOf(R"({"allow_hosts": "pypi.org"})").find("a list of host patterns"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"allow_hosts": [1]})").find("host pattern string"), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"allow_hosts": ["*"]})").find("key \"allow_hosts\""), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"egress_connections": 0})"), "OK");
  EXPECT_EQ(SandboxSpec().allow_hosts.size(), 0u);  // the default: no network at all
}

}  // namespace
}  // namespace agentbox
