#include "core/exec_wire.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace agentbox {
namespace {

using nlohmann::json;

StatusOr<json> ParseObject(const std::string& text, const char* what) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument(std::string("malformed ") + what);
  return j;
}

Status ReadArgv(const json& j, ExecRequest& r) {
  const json* argv = j.contains("argv") ? &j["argv"] : nullptr;
  if (!argv || !argv->is_array() || argv->empty()) {
    return InvalidArgument("exec: \"argv\" must be a non-empty array of strings");
  }
  for (const json& a : *argv) {
    if (!a.is_string()) return InvalidArgument("exec: \"argv\" must hold strings");
    r.argv.push_back(a.get<std::string>());
  }
  return OkStatus();
}

Status ReadEnv(const json& j, ExecRequest& r) {
  if (!j.contains("env")) return OkStatus();
  if (!j["env"].is_array()) return InvalidArgument("exec: \"env\" must be an array of pairs");
  for (const json& kv : j["env"]) {
    if (!kv.is_array() || kv.size() != 2 || !kv[0].is_string() || !kv[1].is_string()) {
      return InvalidArgument("exec: \"env\" entries must be [key, value] strings");
    }
    r.env.emplace_back(kv[0].get<std::string>(), kv[1].get<std::string>());
  }
  return OkStatus();
}

}  // namespace

std::string ExecRequestToWire(const ExecRequest& r) {
  json env = json::array();
  for (const auto& [k, v] : r.env) env.push_back({k, v});
  return json{
      {"op", "exec"},
      {"argv", r.argv},
      {"env", env},
      {"cwd", r.cwd},
      {"timeout_ms", std::max<uint64_t>(1, static_cast<uint64_t>(r.timeout_seconds * 1000))},
      {"output_limit", r.output_limit},
      {"disk_limit", r.disk_limit},
      {"stdin", r.pass_stdin}}
      .dump();
}

StatusOr<ExecRequest> ExecRequestFromWire(const std::string& text) {
  AB_ASSIGN_OR_RETURN(json j, ParseObject(text, "exec request"));
  ExecRequest r;
  AB_RETURN_IF_ERROR(ReadArgv(j, r));
  AB_RETURN_IF_ERROR(ReadEnv(j, r));
  if (j.contains("cwd")) {
    if (!j["cwd"].is_string() || j["cwd"].get<std::string>().rfind('/', 0) != 0) {
      return InvalidArgument("exec: \"cwd\" must be an absolute path");
    }
    r.cwd = j["cwd"].get<std::string>();
  }
  auto number = [&](const char* key, uint64_t fallback) -> StatusOr<uint64_t> {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_number_unsigned()) {
      return InvalidArgument(std::string("exec: \"") + key + "\" must be a non-negative integer");
    }
    return j[key].get<uint64_t>();
  };
  AB_ASSIGN_OR_RETURN(uint64_t timeout_ms, number("timeout_ms", 60000));
  if (timeout_ms == 0) return InvalidArgument("exec: \"timeout_ms\" must be positive");
  r.timeout_seconds = static_cast<double>(timeout_ms) / 1000;
  AB_ASSIGN_OR_RETURN(r.output_limit, number("output_limit", r.output_limit));
  AB_ASSIGN_OR_RETURN(r.disk_limit, number("disk_limit", 0));
  r.pass_stdin = j.value("stdin", false);
  return r;
}

std::string ExecResultToWire(const ExecResult& r) {
  json j = {{"exit_code", r.exit_code},
            {"signal", r.signal ? json(*r.signal) : json(nullptr)},
            {"reason", ExitReasonName(r.reason)},
            {"duration_ms", r.duration_ms},
            {"cpu_ms", r.cpu_ms},
            {"peak_memory_bytes", r.peak_memory_bytes},
            {"stdout_truncated", r.stdout_truncated},
            {"stderr_truncated", r.stderr_truncated},
            {"limits_hit", r.limits_hit}};
  if (r.reason == ExitReason::kError) j["error"] = r.error;
  return json{{"ok", true}, {"result", j}}.dump();
}

StatusOr<ExecResult> ExecResultFromWire(const std::string& text) {
  AB_ASSIGN_OR_RETURN(json j, ParseObject(text, "exec result"));
  if (!j.contains("result") || !j["result"].is_object()) {
    return Internal("the agent's exec response has no result");
  }
  const json& r = j["result"];
  ExecResult out;
  try {
    out.exit_code = r.at("exit_code").get<int>();
    if (!r.at("signal").is_null()) out.signal = r["signal"].get<int>();
    std::string reason = r.at("reason").get<std::string>();
    for (ExitReason e : {ExitReason::kExited, ExitReason::kSignaled, ExitReason::kTimeout,
                         ExitReason::kOom, ExitReason::kError}) {
      if (reason == ExitReasonName(e)) out.reason = e;
    }
    out.error = r.value("error", "");
    out.duration_ms = r.at("duration_ms").get<double>();
    out.cpu_ms = r.at("cpu_ms").get<double>();
    out.peak_memory_bytes = r.at("peak_memory_bytes").get<uint64_t>();
    out.stdout_truncated = r.at("stdout_truncated").get<bool>();
    out.stderr_truncated = r.at("stderr_truncated").get<bool>();
    out.limits_hit = r.at("limits_hit").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    return Internal(std::string("malformed exec result from the agent: ") + e.what());
  }
  return out;
}

}  // namespace agentbox
