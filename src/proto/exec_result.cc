#include "proto/exec_result.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "proto/output_walls.h"
#include "spec/units.h"

namespace agentbox {
namespace {

// Durations are measured in ns; three decimals of a millisecond (1 us) is all that means anything
// and keeps the JSON short. Non-finite values cannot be written as JSON numbers: report 0.
double RoundMillis(double ms) {
  if (!std::isfinite(ms) || ms < 0) return 0;
  return std::round(ms * 1000.0) / 1000.0;
}

nlohmann::ordered_json DiskLimitObject(const DiskLimitReport& d) {
  using nlohmann::ordered_json;
  ordered_json disk;
  disk["bytes"] = d.limit_bytes == kNoDiskLimit ? ordered_json() : ordered_json(d.limit_bytes);
  // No limit ("none"): nothing is enforced, whatever the workspace lives on.
  const bool held = d.limit_bytes != kNoDiskLimit && d.mechanism != QuotaMechanism::kNone;
  disk["enforced"] = held;
  disk["mechanism"] = held ? ordered_json(QuotaMechanismName(d.mechanism)) : ordered_json();
  if (!d.not_enforced.empty()) disk["reason"] = SanitizeUtf8(d.not_enforced);
  return disk;
}

// JSON string escaping as nlohmann's dump writes it (no ensure_ascii): the quote, the backslash
// and control characters; text must be valid UTF-8. EscapedJsonSize lets the caller reserve the
// exact size, so a command's 32 MB of output is never copied through a growing buffer.
// ShortEscape is the two-character form of a byte that has one ("" if none).
std::string_view ShortEscape(unsigned char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return "";
  }
}

size_t EscapedJsonSize(std::string_view text) {
  size_t n = 2;  // the quotes
  for (unsigned char c : text) n += !ShortEscape(c).empty() ? 2 : c < 0x20 ? 6 : 1;
  return n;
}

void AppendEscapedJson(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (unsigned char c : text) {
    if (std::string_view escape = ShortEscape(c); !escape.empty()) {
      out->append(escape);
    } else if (c < 0x20) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xf]);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

// The output as valid UTF-8: the bytes themselves when they already are (no copy), otherwise a
// sanitized copy kept in `storage`.
std::string_view ValidUtf8(const std::string& bytes, std::string* storage) {
  if (IsValidUtf8(bytes)) return bytes;
  *storage = SanitizeUtf8(bytes);
  return *storage;
}

}  // namespace

std::string DiskLimitJson(const DiskLimitReport& report) { return DiskLimitObject(report).dump(); }

const char* ExitReasonName(ExitReason reason) {
  switch (reason) {
    case ExitReason::kExited:
      return "exited";
    case ExitReason::kSignaled:
      return "signaled";
    case ExitReason::kTimeout:
      return "timeout";
    case ExitReason::kOom:
      return "oom";
    case ExitReason::kError:
      return "error";
  }
  return "error";
}

void ExecResult::AddLimitHit(const std::string& limit) {
  if (!HasLimitHit(limit)) limits_hit.push_back(limit);
}

bool ExecResult::HasLimitHit(const std::string& limit) const {
  return std::find(limits_hit.begin(), limits_hit.end(), limit) != limits_hit.end();
}

DiskLimitReport DiskLimitReportOf(const WorkspaceQuota& quota) {
  return {quota.limit_bytes, quota.mechanism, quota.limited() ? quota.not_enforced : ""};
}

std::string UnheldDiskLimitNote(const ExecResult& result) {
  const auto& d = result.disk_limit;
  if (!d || d->limit_bytes == kNoDiskLimit || d->mechanism != QuotaMechanism::kNone) return "";
  return "note: the disk limit " + FormatSize(d->limit_bytes) +
         " is not enforced: " + d->not_enforced +
         " (a workspace agentbox makes is limited; --disk-limit none runs without a limit and "
         "without this note)";
}

const char* NetworkKindName(NetworkKind kind) {
  return kind == NetworkKind::kLookup ? "lookup" : "connect";
}

void AddLookups(NetworkReport& network, const std::vector<std::string>& names, uint64_t lost) {
  network.connections_dropped += lost;
  for (const std::string& name : names) {
    if (network.connections.size() >= kMaxNetworkConnections) {
      ++network.connections_dropped;
      continue;
    }
    NetworkConnection c;
    c.kind = NetworkKind::kLookup;
    c.host = name;
    c.reason = kLookupInSandbox;
    network.connections.push_back(std::move(c));
  }
}

std::vector<std::string> LookupNames(const NetworkReport& network) {
  std::vector<std::string> names;
  for (const NetworkConnection& c : network.connections) {
    if (c.kind == NetworkKind::kLookup) names.push_back(c.host);
  }
  return names;
}

nlohmann::ordered_json NetworkJson(const NetworkReport& network) {
  using nlohmann::ordered_json;
  ordered_json connections = ordered_json::array();
  for (const NetworkConnection& c : network.connections) {
    ordered_json one;
    one["kind"] = NetworkKindName(c.kind);
    one["host"] = SanitizeUtf8(c.host);
    one["port"] = c.port;
    one["allowed"] = c.allowed;
    one["address"] = c.address.empty() ? ordered_json() : ordered_json(c.address);
    one["bytes_sent"] = c.bytes_sent;
    one["bytes_received"] = c.bytes_received;
    if (!c.reason.empty()) one["reason"] = SanitizeUtf8(c.reason);
    connections.push_back(std::move(one));
  }
  ordered_json j;
  j["egress"] = network.egress;
  j["connections"] = std::move(connections);
  if (network.connections_dropped > 0) j["connections_dropped"] = network.connections_dropped;
  return j;
}

StatusOr<NetworkReport> NetworkFromJson(const nlohmann::json& json) {
  NetworkReport report;
  try {
    report.egress = json.at("egress").get<bool>();
    for (const auto& one : json.at("connections")) {
      NetworkConnection c;
      if (one.value("kind", "connect") == std::string("lookup")) c.kind = NetworkKind::kLookup;
      c.host = one.at("host").get<std::string>();
      c.port = one.at("port").get<uint16_t>();
      c.allowed = one.at("allowed").get<bool>();
      if (one.contains("address") && one["address"].is_string()) c.address = one["address"];
      c.bytes_sent = one.at("bytes_sent").get<uint64_t>();
      c.bytes_received = one.at("bytes_received").get<uint64_t>();
      if (one.contains("reason")) c.reason = one["reason"].get<std::string>();
      report.connections.push_back(std::move(c));
    }
    report.connections_dropped = json.value("connections_dropped", uint64_t{0});
  } catch (const std::exception& e) {
    return Internal(std::string("malformed network report: ") + e.what());
  }
  return report;
}

std::string NetworkDenialLines(const NetworkReport& network) {
  std::string lines;
  for (const NetworkConnection& c : network.connections) {
    if (c.allowed) continue;
    if (c.kind == NetworkKind::kLookup) {
      lines += "agentbox: network: connect to " + c.host + " denied by policy " +
               (network.egress ? "(allow_hosts): looked up in the sandbox, not through the proxy "
                                 "(HTTP_PROXY, HTTPS_PROXY, ALL_PROXY)"
                               : "(allow_hosts: none, the sandbox has no network)") +
               "\n";
      continue;
    }
    if (c.port == 0) {  // refused before its request was read (egress_connections)
      lines += "agentbox: network: a connection was refused: " + c.reason + "\n";
      continue;
    }
    const bool v6 = c.host.find(':') != std::string::npos;
    lines += "agentbox: network: connect to " + (v6 ? "[" + c.host + "]" : c.host) + ":" +
             std::to_string(c.port) + " denied by policy (allow_hosts)";
    if (!c.reason.empty() && c.reason != kNotOnTheList) lines += ": " + c.reason;
    lines += "\n";
  }
  return lines;
}

std::string NetworkNotes(const ExecResult& result) {
  std::string observed = NetworkDenialLines(result.network);
  if (!observed.empty() || result.network.egress || result.reason == ExitReason::kError) {
    return observed;
  }
  std::string_view text = result.stderr_data;
  if (text.size() > 64 * 1024) text = text.substr(text.size() - 64 * 1024);
  std::string lines;
  for (const std::string& host : HostsOfLookupFailures(text)) {
    lines += "agentbox: network: connect to " + host +
             " denied by policy (allow_hosts: none, the sandbox has no network)\n";
  }
  if (lines.empty() && ShowsNoNetwork(text)) {
    lines =
        "agentbox: network: the sandbox has no network (no allow_hosts): a connection the "
        "command tried was denied by policy\n";
  }
  return lines;
}

ExecResult ErrorResult(const Status& status) {
  ExecResult result;
  result.exit_code = 125;
  result.reason = ExitReason::kError;
  result.error = status.message();
  result.error_code = status.ok() ? StatusCode::kInternal : status.code();
  return result;
}

ExecResultJson::ExecResultJson(const ExecResult& result) {
  // ordered_json keeps the documented key order; every string is sanitized first because the
  // command's output is arbitrary bytes and JSON text must be valid UTF-8. The two outputs are
  // escaped straight into the text at Render, which is reserved at its exact size: a result
  // costs its raw output plus its JSON text, never a copy through a growing buffer.
  nlohmann::ordered_json j;
  j["exit_code"] = result.exit_code;
  j["signal"] = result.signal ? nlohmann::ordered_json(*result.signal) : nullptr;
  j["reason"] = ExitReasonName(result.reason);
  j["duration_ms"] = RoundMillis(result.duration_ms);
  j["cpu_ms"] = RoundMillis(result.cpu_ms);
  j["peak_memory_bytes"] = result.peak_memory_bytes;
  head_ = j.dump();  // {"exit_code":...,"peak_memory_bytes":N}
  head_.pop_back();
  head_ += ",\"stdout\":";
  j = nlohmann::ordered_json::object();
  j["stdout_truncated"] = result.stdout_truncated;
  j["stderr_truncated"] = result.stderr_truncated;
  auto limits = nlohmann::ordered_json::array();
  for (const std::string& limit : result.limits_hit) limits.push_back(SanitizeUtf8(limit));
  j["limits_hit"] = std::move(limits);
  if (result.reason == ExitReason::kError) {
    j["error"] = SanitizeUtf8(result.error);
    j["error_code"] = StatusCodeName(result.error_code);
  }
  if (result.disk_limit) j["disk_limit"] = DiskLimitObject(*result.disk_limit);
  // Every command that ran says what it did on the network; one that never ran has its error.
  if (result.reason != ExitReason::kError) {
    j["network"] = NetworkJson(result.network);
    j["effects"] = EffectsJson(result.effects);
  }
  if (result.rollback) {
    j["rollback"] = {{"rolled_back", result.rollback->rolled_back}};
    if (!result.rollback->error.empty()) {
      j["rollback"]["error"] = SanitizeUtf8(result.rollback->error);
    }
  }
  tail_ = j.dump();  // {"stdout_truncated":...}
  tail_[0] = ',';
  stdout_ = ValidUtf8(result.stdout_data, &stdout_storage_);
  stderr_ = ValidUtf8(result.stderr_data, &stderr_storage_);
  size_ = head_.size() + EscapedJsonSize(stdout_) + kStderrKey.size() + EscapedJsonSize(stderr_) +
          tail_.size();
}

std::string ExecResultJson::Render() const {
  std::string json;
  json.reserve(size_ + 1);  // one byte more: a caller's `+ "\n"` then appends in place
  json.append(head_);
  AppendEscapedJson(stdout_, &json);
  json.append(kStderrKey);
  AppendEscapedJson(stderr_, &json);
  json.append(tail_);
  return json;
}

std::string ExecResultToJson(const ExecResult& result) { return ExecResultJson(result).Render(); }

}  // namespace agentbox
