#include "http/metrics.h"

#include <cstdio>

namespace agentbox {
namespace {

std::string FormatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

}  // namespace

void ServerMetrics::RecordExec(const std::string& reason, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++execs_by_reason_[reason];
  ++exec_count_;
  exec_seconds_sum_ += seconds;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++bucket_counts_[i];
      break;
    }
  }
}

void ServerMetrics::RecordRequest(int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_by_status_[status];
}

void ServerMetrics::RecordExpired() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++expired_;
}

void ServerMetrics::RecordMcpToolCall(const std::string& tool, bool is_error) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++mcp_calls_[{tool, is_error}];
}

std::string ServerMetrics::Render(size_t sandboxes_live) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out =
      "# HELP agentbox_sandboxes_live Sandboxes whose agent is running.\n"
      "# TYPE agentbox_sandboxes_live gauge\n"
      "agentbox_sandboxes_live " +
      std::to_string(sandboxes_live) +
      "\n"
      "# HELP agentbox_sandboxes_expired_total Sandboxes removed for their ttl or idle timeout.\n"
      "# TYPE agentbox_sandboxes_expired_total counter\n"
      "agentbox_sandboxes_expired_total " +
      std::to_string(expired_) +
      "\n"
      "# HELP agentbox_execs_total Commands run through the API, by the reason they ended.\n"
      "# TYPE agentbox_execs_total counter\n";
  for (const auto& [reason, n] : execs_by_reason_) {
    out += "agentbox_execs_total{reason=\"" + reason + "\"} " + std::to_string(n) + "\n";
  }
  out +=
      "# HELP agentbox_exec_duration_seconds Wall-clock time of commands run through the API.\n"
      "# TYPE agentbox_exec_duration_seconds histogram\n";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    cumulative += bucket_counts_[i];
    out += "agentbox_exec_duration_seconds_bucket{le=\"" + FormatDouble(kBuckets[i]) + "\"} " +
           std::to_string(cumulative) + "\n";
  }
  out += "agentbox_exec_duration_seconds_bucket{le=\"+Inf\"} " + std::to_string(exec_count_) + "\n";
  out += "agentbox_exec_duration_seconds_sum " + FormatDouble(exec_seconds_sum_) + "\n";
  out += "agentbox_exec_duration_seconds_count " + std::to_string(exec_count_) + "\n";
  out +=
      "# HELP agentbox_http_requests_total HTTP requests answered, by status.\n"
      "# TYPE agentbox_http_requests_total counter\n";
  for (const auto& [status, n] : requests_by_status_) {
    out += "agentbox_http_requests_total{code=\"" + std::to_string(status) + "\"} " +
           std::to_string(n) + "\n";
  }
  // Tool names are the server's own (mcp/tool_schemas.cc): no escaping needed.
  out +=
      "# HELP agentbox_mcp_tool_calls_total MCP tool calls answered, by tool and result.\n"
      "# TYPE agentbox_mcp_tool_calls_total counter\n";
  for (const auto& [key, n] : mcp_calls_) {
    out += "agentbox_mcp_tool_calls_total{tool=\"" + key.first + "\",result=\"" +
           (key.second ? "error" : "ok") + "\"} " + std::to_string(n) + "\n";
  }
  return out;
}

void TenantMetrics::RecordExec(const std::string& tenant, const std::string& reason,
                               double seconds) {
  whole_.RecordExec(reason, seconds);
  if (!tenant.empty()) Slot(tenant).RecordExec(reason, seconds);
}

void TenantMetrics::RecordRequest(const std::string& tenant, int status) {
  whole_.RecordRequest(status);
  if (!tenant.empty()) Slot(tenant).RecordRequest(status);
}

void TenantMetrics::RecordExpired(const std::string& tenant) {
  whole_.RecordExpired();
  if (!tenant.empty()) Slot(tenant).RecordExpired();
}

void TenantMetrics::RecordMcpToolCall(const std::string& tenant, const std::string& tool,
                                      bool is_error) {
  whole_.RecordMcpToolCall(tool, is_error);
  if (!tenant.empty()) Slot(tenant).RecordMcpToolCall(tool, is_error);
}

ServerMetrics& TenantMetrics::Slot(const std::string& tenant) {
  if (tenant.empty()) return whole_;
  std::lock_guard<std::mutex> lock(mutex_);
  return by_tenant_[tenant];
}

}  // namespace agentbox
