// The server's Prometheus metrics (text exposition format 0.0.4).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace agentbox {

class ServerMetrics {
 public:
  // Upper bounds of the exec duration histogram, in seconds (+Inf is implied).
  static constexpr std::array<double, 14> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                      0.25,  0.5,    1,     2.5,  10,    30,   60};

  // One command through the API: `reason` is the result's reason ("exited", "timeout", ...).
  void RecordExec(const std::string& reason, double seconds);
  void RecordRequest(int status);
  void RecordExpired();  // a sandbox removed for its ttl or idle timeout
  // One MCP tools/call answered: the tool's name, and whether the result is a tool error.
  // A command it ran is also a RecordExec, as a REST exec's.
  void RecordMcpToolCall(const std::string& tool, bool is_error);

  // agentbox_sandboxes_live, agentbox_sandboxes_expired_total, agentbox_execs_total{reason},
  // agentbox_exec_duration_seconds, agentbox_http_requests_total{code},
  // agentbox_mcp_tool_calls_total{tool,result}.
  std::string Render(size_t sandboxes_live) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> execs_by_reason_;
  std::map<int, uint64_t> requests_by_status_;
  std::map<std::pair<std::string, bool>, uint64_t> mcp_calls_;  // (tool, is_error)
  std::array<uint64_t, kBuckets.size()> bucket_counts_ = {};    // not cumulative; Render sums
  uint64_t exec_count_ = 0;
  uint64_t expired_ = 0;
  double exec_seconds_sum_ = 0;
};

// The server's metrics and each tenant's own: a tenant's token on /metrics sees only what its
// own requests and sandboxes did (docs/security.md: a tenant learns nothing of another's).
class TenantMetrics {
 public:
  // Recorded for the whole server and, for a tenant's request, for that tenant too.
  void RecordExec(const std::string& tenant, const std::string& reason, double seconds);
  void RecordRequest(const std::string& tenant, int status);
  void RecordExpired(const std::string& tenant);  // tenant "": a sandbox of no tenant
  void RecordMcpToolCall(const std::string& tenant, const std::string& tool, bool is_error);

  ServerMetrics& Whole() { return whole_; }
  // The tenant's (empty metrics if it has done nothing yet); "" is the whole server.
  const ServerMetrics& Of(const std::string& tenant) { return Slot(tenant); }

 private:
  ServerMetrics& Slot(const std::string& tenant);

  ServerMetrics whole_;
  std::mutex mutex_;
  std::map<std::string, ServerMetrics> by_tenant_;  // nodes never move: references stay valid
};

}  // namespace agentbox
