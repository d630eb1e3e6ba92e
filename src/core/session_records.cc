#include "core/session_records.h"

#include <time.h>

#include <cstdio>

#include "base/sha256.h"
#include "spec/spec_json.h"

namespace agentbox {
namespace {

using ojson = nlohmann::ordered_json;

std::string NowRfc3339Millis() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  ::gmtime_r(&ts.tv_sec, &tm);
  char buf[80];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ts.tv_nsec / 1'000'000));
  return buf;
}

}  // namespace

std::string PolicyHash(const SandboxSpec& spec) { return Sha256Of(SpecToPolicyJson(spec).dump()); }

ojson SessionRecordHead(const std::string& op, const SandboxRecord& record) {
  return {{"v", 1},
          {"time", NowRfc3339Millis()},
          {"op", op},
          {"sandbox", record.id},
          {"policy_hash", PolicyHash(record.spec)},
          {"image_digest", record.image_id.empty() ? ojson() : ojson(record.image_id)}};
}

void SetWorkspaceDigest(ojson& rec, const char* key, const StatusOr<std::string>& digest) {
  if (digest.ok()) {
    rec[key] = *digest;
    return;
  }
  rec[key] = nullptr;
  rec["digest_error"] = digest.status().message();
}

void AddExecRequest(ojson& rec, const ExecRequest& request) {
  ojson env = ojson::array();
  for (const auto& [k, v] : request.env) env.push_back({k, v});
  rec["argv"] = request.argv;
  rec["env"] = env;
  rec["cwd"] = request.cwd;
  rec["timeout"] = request.timeout_seconds;
  rec["output_limit"] = request.output_limit;
  rec["tty"] = request.tty;
  rec["stdin"] = request.pass_stdin || request.interactive;
  rec["detach"] = request.detach;
}

void AddExecOutcome(ojson& rec, const ExecResult& r, const std::string& stdout_digest,
                    const std::string& stderr_digest) {
  rec["exit_code"] = r.exit_code;
  rec["reason"] = ExitReasonName(r.reason);
  rec["signal"] = r.signal ? ojson(*r.signal) : ojson();
  if (r.reason == ExitReason::kError) rec["error"] = r.error;
  rec["stdout_digest"] = stdout_digest;
  rec["stderr_digest"] = stderr_digest;
  rec["stdout_truncated"] = r.stdout_truncated;
  rec["stderr_truncated"] = r.stderr_truncated;
  rec["limits_hit"] = r.limits_hit;
  rec["duration_ms"] = r.duration_ms;
}

void AddOutcome(ojson& rec, const Status& status) {
  if (status.ok()) return;
  rec["error"] = status.message();
  rec["error_code"] = StatusCodeName(status.code());
}

StatusOr<ExecRequest> ExecRequestFromRecord(const nlohmann::json& rec) {
  ExecRequest request;
  try {
    request.argv = rec.at("argv").get<std::vector<std::string>>();
    for (const auto& kv : rec.at("env")) {
      request.env.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
    }
    request.cwd = rec.at("cwd").get<std::string>();
    request.timeout_seconds = rec.at("timeout").get<double>();
    request.output_limit = rec.at("output_limit").get<uint64_t>();
    request.tty = rec.value("tty", false);
    request.detach = rec.value("detach", false);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(std::string("malformed exec record: ") + e.what());
  }
  if (request.argv.empty()) return InvalidArgument("malformed exec record: empty argv");
  return request;
}

}  // namespace agentbox
