#include <gtest/gtest.h>

#include "http/listen_address.h"
#include "http/metrics.h"

namespace agentbox {
namespace {

TEST(ServerMetricsTest, RendersPrometheusText) {
  ServerMetrics m;
  m.RecordExec("exited", 0.0005);
  m.RecordExec("exited", 0.02);
  m.RecordExec("timeout", 100);
  m.RecordRequest(200);
  m.RecordRequest(200);
  m.RecordRequest(404);
  std::string text = m.Render(3);
  for (const char* line : {
           "# TYPE agentbox_sandboxes_live gauge\nagentbox_sandboxes_live 3\n",
           "# TYPE agentbox_execs_total counter\n",
           "agentbox_execs_total{reason=\"exited\"} 2\n",
           "agentbox_execs_total{reason=\"timeout\"} 1\n",
           "# TYPE agentbox_exec_duration_seconds histogram\n",
           "agentbox_exec_duration_seconds_bucket{le=\"0.001\"} 1\n",
           "agentbox_exec_duration_seconds_bucket{le=\"0.01\"} 1\n",
           "agentbox_exec_duration_seconds_bucket{le=\"0.025\"} 2\n",
           "agentbox_exec_duration_seconds_bucket{le=\"60\"} 2\n",
           "agentbox_exec_duration_seconds_bucket{le=\"+Inf\"} 3\n",
           "agentbox_exec_duration_seconds_count 3\n",
           "agentbox_exec_duration_seconds_sum 100.0205\n",
           "agentbox_http_requests_total{code=\"200\"} 2\n",
           "agentbox_http_requests_total{code=\"404\"} 1\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
  EXPECT_EQ(text.back(), '\n');
}

TEST(ServerListenAddressTest, Parses) {
  auto u = ParseListenAddress("unix:/tmp/a.sock");
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->unix_socket);
  EXPECT_EQ(u->path, "/tmp/a.sock");
  auto t = ParseListenAddress("tcp:127.0.0.1:8080");
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->unix_socket);
  EXPECT_EQ(t->host, "127.0.0.1");
  EXPECT_EQ(t->port, 8080);
  auto v6 = ParseListenAddress("tcp:[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  for (const char* bad : {"", "unix:", "tcp:", "tcp:1.2.3.4", "tcp::80", "tcp:h:99999", "tcp:h:8x",
                          "http://x", "tcp:h:"}) {
    EXPECT_FALSE(ParseListenAddress(bad).ok()) << bad;
  }
}

TEST(ServerListenAddressTest, Loopback) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "localhost", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "192.168.1.1", "example.com", "",
                           "::ffff:10.0.0.1", "128.0.0.1"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
}

// A tenant's figures are its own; the whole server's hold everyone's, including what no tenant
// asked (an anonymous caller's).
TEST(TenantMetricsTest, EachTenantSeesOnlyItsOwn) {
  TenantMetrics m;
  m.RecordExec("a", "exited", 0.02);
  m.RecordExec("a", "timeout", 5);
  m.RecordRequest("a", 201);
  m.RecordExec("", "oom", 1);
  const std::string a = m.Of("a").Render(1);
  EXPECT_NE(a.find("agentbox_execs_total{reason=\"exited\"} 1\n"), std::string::npos) << a;
  EXPECT_EQ(a.find("oom"), std::string::npos) << a;
  const std::string b = m.Of("b").Render(0);
  EXPECT_EQ(b.find("agentbox_execs_total{"), std::string::npos) << b;
  EXPECT_EQ(b.find("agentbox_http_requests_total{"), std::string::npos) << b;
  EXPECT_NE(b.find("agentbox_exec_duration_seconds_count 0\n"), std::string::npos) << b;
  const std::string whole = m.Of("").Render(2);
  EXPECT_NE(whole.find("agentbox_execs_total{reason=\"oom\"} 1\n"), std::string::npos);
  EXPECT_NE(whole.find("agentbox_exec_duration_seconds_count 3\n"), std::string::npos);
}

// MCP tool calls, by tool and whether the result was a tool error; a tenant sees its own only.
TEST(ServerMetricsTest, CountsMcpToolCalls) {
  TenantMetrics m;
  m.RecordMcpToolCall("a", "bash", false);
  m.RecordMcpToolCall("a", "bash", false);
  m.RecordMcpToolCall("b", "bash", true);
  m.RecordMcpToolCall("b", "read_file", false);
  std::string whole = m.Whole().Render(0);
  EXPECT_NE(whole.find("# TYPE agentbox_mcp_tool_calls_total counter\n"), std::string::npos);
  EXPECT_NE(whole.find("agentbox_mcp_tool_calls_total{tool=\"bash\",result=\"ok\"} 2\n"),
            std::string::npos);
  EXPECT_NE(whole.find("agentbox_mcp_tool_calls_total{tool=\"bash\",result=\"error\"} 1\n"),
            std::string::npos);
  std::string a = m.Of("a").Render(0);
  EXPECT_NE(a.find("{tool=\"bash\",result=\"ok\"} 2\n"), std::string::npos);
  EXPECT_EQ(a.find("read_file"), std::string::npos);
}

}  // namespace
}  // namespace agentbox
