#include "http/server_config.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

using nlohmann::json;

TEST(ServerConfigTest, BuiltInCeilingsBoundWhatTheIssueSawGranted) {
  const TenantLimits limits = TenantLimits::BuiltIn(1 << 20);
  // memory 1T, pids 1,000,000, cpus 1024, /tmp 1T, timeout 7d: each refused, naming key and max.
  const std::pair<const char*, json> asks[] = {
      {"memory", "1T"},        {"pids", 1000000},   {"cpus", 1024},       {"tmp_size", "1T"},
      {"timeout", "7d"},       {"shm_size", "64G"}, {"disk_limit", "1T"}, {"output_limit", "100G"},
      {"open_files", 1048576}, {"ttl", "30d"},      {"ttl", "none"}};
  for (const auto& [key, value] : asks) {
    json policy = {{key, value}};
    Status st = limits.ApplyToPolicy(&policy);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << key;
    EXPECT_NE(st.message().find(std::string("\"") + key + "\""), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("ceiling of"), std::string::npos) << st.message();
  }
  json policy = {{"memory", "1T"}};
  EXPECT_EQ(limits.ApplyToPolicy(&policy).message(),
            "\"memory\": 1T is over this server's ceiling of 8G");
  json none = {{"disk_limit", 0}};
  EXPECT_EQ(limits.ApplyToPolicy(&none).message(),
            "\"disk_limit\": 0 (no limit) is over this server's ceiling of 16G");
}

TEST(ServerConfigTest, DefaultsFillWhatTheRequestLeavesOut) {
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig(R"({"limits": {"memory": {"default": "256M", "max": "1G"},
                                               "timeout": {"max": "2m"}}})",
                                "c.json", &config)
                  .ok());
  json policy = {{"pids", 64}};
  ASSERT_TRUE(config.limits.ApplyToPolicy(&policy).ok());
  EXPECT_EQ(policy["memory"], 256u << 20);
  EXPECT_EQ(policy["pids"], 64);
  // Defaults equal to agentbox's own stay implicit: the sandbox can tell that nobody asked.
  EXPECT_FALSE(policy.contains("timeout"));
  EXPECT_FALSE(policy.contains("output_limit"));
  EXPECT_FALSE(policy.contains("disk_limit"));
  json over = {{"timeout", 121}};
  EXPECT_EQ(config.limits.ApplyToPolicy(&over).message(),
            "\"timeout\": 121 seconds is over this server's ceiling of 120 seconds");
  EXPECT_FALSE(config.limits.CheckTimeout(120.5).ok());
  EXPECT_TRUE(config.limits.CheckTimeout(120).ok());
  EXPECT_EQ(config.limits.ClampTimeout(3600), 120);
  EXPECT_FALSE(config.limits.CheckOutputLimit(17u << 20).ok());
  EXPECT_EQ(config.limits.ClampOutputLimit(uint64_t{100} << 30), 16u << 20);
}

// A detached exec that names no timeout is held to the ceiling, never unbounded.
TEST(ServerConfigTest, DetachedTimeoutIsTheCeiling) {
  EXPECT_EQ(TenantLimits::BuiltIn(1 << 20).DetachedTimeout(), 3600);
  ServerConfig config;
  ASSERT_TRUE(
      ParseServerConfig(R"({"limits": {"timeout": {"max": "2m"}}})", "c.json", &config).ok());
  EXPECT_EQ(config.limits.DetachedTimeout(), 120);
}

// A tenant's sandbox gets a lifetime unless the operator allows "none"; the built-in is one day,
// at most a week.
TEST(ServerConfigTest, TtlDefaultAndCeiling) {
  const TenantLimits builtin = TenantLimits::BuiltIn(1 << 20);
  json policy = json::object();
  ASSERT_TRUE(builtin.ApplyToPolicy(&policy).ok());
  EXPECT_EQ(policy["ttl"], 86400.0);
  json none = {{"ttl", "none"}};
  EXPECT_EQ(builtin.ApplyToPolicy(&none).message(),
            "\"ttl\": none is over this server's ceiling of 604800 seconds");
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig(R"({"limits": {"ttl": {"default": "none", "max": "none"}}})",
                                "c.json", &config)
                  .ok());
  json forever = json::object();
  ASSERT_TRUE(config.limits.ApplyToPolicy(&forever).ok());
  EXPECT_FALSE(forever.contains("ttl"));  // none is agentbox's own default
  json asked = {{"ttl", "none"}};
  EXPECT_TRUE(config.limits.ApplyToPolicy(&asked).ok());
}

// No idle timeout unless asked or set by the operator, whose ceiling then holds.
TEST(ServerConfigTest, AccessLogIsAPathOrStderr) {
  ServerConfig config;
  EXPECT_TRUE(config.access_log.empty());  // off unless asked for
  ASSERT_TRUE(ParseServerConfig(R"({"access_log": "-"})", "c.json", &config).ok());
  EXPECT_EQ(config.access_log, "-");
  Status bad = ParseServerConfig(R"({"access_log": 1})", "c.json", &config);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("access_log"), std::string::npos);
}

TEST(ServerConfigTest, IdleTimeoutDefaultAndCeiling) {
  json policy = json::object();
  ASSERT_TRUE(TenantLimits::BuiltIn(1 << 20).ApplyToPolicy(&policy).ok());
  EXPECT_FALSE(policy.contains("idle_timeout"));
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig(R"({"limits": {"idle_timeout": {"default": "10m", "max": "1h"}}})",
                                "c.json", &config)
                  .ok());
  json defaulted = json::object();
  ASSERT_TRUE(config.limits.ApplyToPolicy(&defaulted).ok());
  EXPECT_EQ(defaulted["idle_timeout"], 600.0);
  json never = {{"idle_timeout", "none"}};
  EXPECT_EQ(config.limits.ApplyToPolicy(&never).message(),
            "\"idle_timeout\": none is over this server's ceiling of 3600 seconds");
}

TEST(ServerConfigTest, OpenFilesIsBoundedByTheHardLimit) {
  const TenantLimits limits = TenantLimits::BuiltIn(512);
  EXPECT_EQ(limits.Get("open_files").max, 512);
  EXPECT_EQ(limits.Get("open_files").default_value, 512);
  json policy = {{"open_files", 513}};
  EXPECT_EQ(limits.ApplyToPolicy(&policy).message(),
            "\"open_files\": 513 is over this server's ceiling of 512");
}

TEST(ServerConfigTest, StrictParsing) {
  const std::pair<const char*, const char*> bad[] = {
      {R"({"bogus": 1})", "unknown key \"bogus\""},
      {R"({"workers": 1, "workers": 2})", "appears twice"},
      {R"({"limits": {"ttl": {"default": "none", "max": "1h"}}})", "the default none is over"},
      {R"({"limits": {"ttl": {"max": "0.5s"}}})", "must be \"none\" or 1 to"},
      {R"({"limits": {"ttl": {"max": 0}}})", "must be \"none\" or 1 to"},  // no silent none
      {R"({"limits": {"memory": {"default": "2G", "max": "1G"}}})", "is over the max"},
      {R"({"limits": {"memory": {"max": "1M"}}})", "must be at least 4M"},
      {R"({"limits": {"memory": {"dflt": "1M"}}})", "unknown key \"dflt\""},
      {R"({"limits": {"rootfs": {"max": 1}}})", "not a limit"},
      {R"({"limits": {"disk_limit": {"max": 0}}})", "cannot be a server's default or ceiling"},
      {R"({"workspace_root": "relative/dir"})", "absolute"},
      {R"({"workers": 0})", "from 1 to 4096"},
      {R"({"head_timeout": "2d"})", "up to one day"},
      {R"({"allow_host_paths": "yes"})", "true or false"},
      {R"([1])", "expected a JSON object"},
      {"{", "malformed JSON"},
  };
  for (const auto& [text, want] : bad) {
    ServerConfig config;
    Status st = ParseServerConfig(text, "c.json", &config);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(st.message().find(want), std::string::npos) << text << ": " << st.message();
    EXPECT_TRUE(st.message().starts_with("c.json: ")) << st.message();
  }
}

TEST(ServerConfigTest, ConnectionSettings) {
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig(R"({"workspace_root": "/srv/ws", "allow_host_paths": true,
      "max_connections": 20000, "max_connections_per_peer": 50, "workers": 8,
      "head_timeout": "5s", "body_timeout": 30, "idle_timeout": "2m"})",
                                "c.json", &config)
                  .ok());
  EXPECT_EQ(config.workspace_root, "/srv/ws");
  EXPECT_TRUE(config.allow_host_paths);
  EXPECT_EQ(config.max_connections, 20000);
  EXPECT_EQ(config.max_connections_per_peer, 50);
  EXPECT_EQ(config.workers, 8);
  EXPECT_EQ(config.head_timeout_seconds, 5);
  EXPECT_EQ(config.body_timeout_seconds, 30);
  EXPECT_EQ(config.idle_timeout_seconds, 120);
  EXPECT_EQ(config.mcp_session_idle_timeout_seconds, 600) << "built-in: ten minutes";
}

TEST(ServerConfigTest, McpBashOutputChars) {
  ServerConfig config;
  EXPECT_EQ(config.mcp_bash_output_chars, 30000);
  ASSERT_TRUE(ParseServerConfig(R"({"mcp_bash_output_chars": 0})", "c.json", &config).ok());
  EXPECT_EQ(config.mcp_bash_output_chars, 0) << "never cut";
  EXPECT_FALSE(ParseServerConfig(R"({"mcp_bash_output_chars": -1})", "c.json", &config).ok());
  EXPECT_FALSE(ParseServerConfig(R"({"mcp_bash_output_chars": "1k"})", "c.json", &config).ok());
}

TEST(ServerConfigTest, McpSessionIdleTimeout) {
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig(R"({"mcp_session_idle_timeout": "90s"})", "c.json", &config).ok());
  EXPECT_EQ(config.mcp_session_idle_timeout_seconds, 90);
  for (const char* bad :
       {R"({"mcp_session_idle_timeout": 0})", R"({"mcp_session_idle_timeout": "2d"})",
        R"({"mcp_session_idle_timeout": true})"}) {
    EXPECT_FALSE(ParseServerConfig(bad, "c.json", &config).ok()) << bad;
  }
}

}  // namespace
}  // namespace agentbox

namespace agentbox {
namespace {

TEST(ServerConfigTest, AllowHostsIsBoundedByTheOperatorsList) {
  ServerConfig none;
  json asks = {{"allow_hosts", {"pypi.org"}}};
  EXPECT_NE(none.limits.ApplyToPolicy(&asks).message().find("the operator opens no egress"),
            std::string::npos);
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig(R"({"allow_hosts": ["pypi.org:443", "*.example.com"],
                                    "limits": {"egress_connections": {"default": 8, "max": 16}}})",
                                "c.json", &config)
                  .ok());
  json ok = {{"allow_hosts", {"pypi.org:443", "a.example.com", "*.b.example.com:8443"}}};
  EXPECT_TRUE(config.limits.ApplyToPolicy(&ok).ok());
  for (const char* wider : {"pypi.org", "example.com", "*.com", "198.51.100.1"}) {
    json over = {{"allow_hosts", {wider}}};
    EXPECT_EQ(config.limits.ApplyToPolicy(&over).code(), StatusCode::kInvalidArgument) << wider;
  }
  json many = {{"egress_connections", 64}};
  EXPECT_NE(config.limits.ApplyToPolicy(&many).message().find("ceiling of 16"), std::string::npos);
  ServerConfig bad;
  EXPECT_FALSE(ParseServerConfig(R"({"allow_hosts": ["*"]})", "c.json", &bad).ok());
}

}  // namespace
}  // namespace agentbox
