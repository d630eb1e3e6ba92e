#include "proto/exec_result.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "base/utf8.h"
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
  disk["enforced"] = d.mechanism != QuotaMechanism::kNone;
  disk["mechanism"] = d.mechanism == QuotaMechanism::kNone
                          ? ordered_json()
                          : ordered_json(QuotaMechanismName(d.mechanism));
  if (!d.not_enforced.empty()) disk["reason"] = SanitizeUtf8(d.not_enforced);
  return disk;
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

ExecResult ErrorResult(const std::string& message) {
  ExecResult result;
  result.exit_code = 125;
  result.reason = ExitReason::kError;
  result.error = message;
  return result;
}

std::string ExecResultToJson(const ExecResult& result) {
  // ordered_json keeps the documented key order; every string is sanitized first because the
  // command's output is arbitrary bytes and JSON text must be valid UTF-8.
  nlohmann::ordered_json j;
  j["exit_code"] = result.exit_code;
  j["signal"] = result.signal ? nlohmann::ordered_json(*result.signal) : nullptr;
  j["reason"] = ExitReasonName(result.reason);
  j["duration_ms"] = RoundMillis(result.duration_ms);
  j["cpu_ms"] = RoundMillis(result.cpu_ms);
  j["peak_memory_bytes"] = result.peak_memory_bytes;
  j["stdout"] = SanitizeUtf8(result.stdout_data);
  j["stderr"] = SanitizeUtf8(result.stderr_data);
  j["stdout_truncated"] = result.stdout_truncated;
  j["stderr_truncated"] = result.stderr_truncated;
  auto limits = nlohmann::ordered_json::array();
  for (const std::string& limit : result.limits_hit) limits.push_back(SanitizeUtf8(limit));
  j["limits_hit"] = std::move(limits);
  if (result.reason == ExitReason::kError) j["error"] = SanitizeUtf8(result.error);
  if (result.disk_limit) j["disk_limit"] = DiskLimitObject(*result.disk_limit);
  return j.dump();
}

}  // namespace agentbox
