#include "proto/exec_wire.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/utf8.h"
#include "proto/terminal_wire.h"

namespace agentbox {
namespace {

using nlohmann::json;

// JSON text is UTF-8, but argv, env and paths are bytes (a file named in Latin-1 is a valid
// argument). A string that is not valid UTF-8 travels as {"bytes":[99,97,102,233]}, so every
// byte arrives; json::dump() would otherwise throw (type_error 316) and end agentbox.
json WireString(const std::string& s) {
  if (IsValidUtf8(s)) return s;
  json bytes = json::array();
  for (char c : s) bytes.push_back(static_cast<unsigned char>(c));
  return {{"bytes", bytes}};
}

// The inverse of WireString; false for anything else.
bool ReadWireString(const json& v, std::string* out) {
  if (v.is_string()) {
    *out = v.get<std::string>();
    return true;
  }
  if (!v.is_object() || v.size() != 1 || !v.contains("bytes") || !v["bytes"].is_array()) {
    return false;
  }
  out->clear();
  for (const json& b : v["bytes"]) {
    if (!b.is_number_unsigned() || b.get<uint64_t>() > 255) return false;
    out->push_back(static_cast<char>(b.get<uint64_t>()));
  }
  return true;
}

// A name the DNS catcher recorded: presentation form, so printable ASCII, at most 4 * 255 bytes.
bool IsLookupName(const json& v) {
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s.size() <= 1024 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

// "lookups" of a result from the agent: strict, it comes from inside the sandbox.
Status ReadLookups(const json& r, NetworkReport& network) {
  if (!r.contains("lookups")) return OkStatus();
  const json& names = r["lookups"];
  const json& lost = r.contains("lookups_lost") ? r["lookups_lost"] : json(0);
  if (!names.is_array() || names.size() > kMaxNetworkConnections ||
      !std::all_of(names.begin(), names.end(), IsLookupName) || !lost.is_number_unsigned()) {
    return Internal("malformed exec result from the agent: bad lookups");
  }
  AddLookups(network, names.get<std::vector<std::string>>(), lost.get<uint64_t>());
  return OkStatus();
}

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
    std::string arg;
    if (!ReadWireString(a, &arg)) return InvalidArgument("exec: \"argv\" must hold strings");
    r.argv.push_back(std::move(arg));
  }
  return OkStatus();
}

Status ReadEnv(const json& j, ExecRequest& r) {
  if (!j.contains("env")) return OkStatus();
  if (!j["env"].is_array()) return InvalidArgument("exec: \"env\" must be an array of pairs");
  for (const json& kv : j["env"]) {
    std::string key, value;
    if (!kv.is_array() || kv.size() != 2 || !ReadWireString(kv[0], &key) ||
        !ReadWireString(kv[1], &value)) {
      return InvalidArgument("exec: \"env\" entries must be [key, value] strings");
    }
    r.env.emplace_back(std::move(key), std::move(value));
  }
  return OkStatus();
}

// Whole milliseconds, at least 1. Callers bound timeouts (CheckTimeout); the clamp keeps the
// conversion defined whatever arrives here (a double beyond 2^64 would be undefined behaviour).
uint64_t TimeoutMillis(double seconds) {
  const double ms = seconds * 1000;
  if (!(ms >= 1)) return 1;
  if (ms >= 18446744073709549568.0) return UINT64_MAX;  // the largest double below 2^64
  return static_cast<uint64_t>(ms);
}

// r[key] as an integer in [lo, hi], checked before converting: json::get<int>() of 1e300 is
// undefined behaviour, and a result comes from inside the sandbox. nullopt when missing, not
// an integer or out of range.
std::optional<int64_t> IntegerIn(const json& r, const char* key, int64_t lo, int64_t hi) {
  auto it = r.find(key);
  if (it == r.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(hi)) {
    return std::nullopt;  // too large for int64_t: converting it would wrap
  }
  int64_t v = it->get<int64_t>();
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

}  // namespace

std::string ExecRequestToWire(const ExecRequest& r) {
  json argv = json::array();
  for (const std::string& a : r.argv) argv.push_back(WireString(a));
  json env = json::array();
  for (const auto& [k, v] : r.env) env.push_back({WireString(k), WireString(v)});
  return json{
      {"op", "exec"},
      {"argv", argv},
      {"env", env},
      {"cwd", WireString(r.cwd)},
      {"timeout_ms", r.detach && r.timeout_seconds == 0 ? 0 : TimeoutMillis(r.timeout_seconds)},
      {"output_limit", r.output_limit},
      {"stdin", r.pass_stdin},
      {"stdin_frames", r.stdin_frames},
      {"detach", r.detach},
      {"interactive", r.interactive},
      {"tty", r.tty},
      {"rows", r.rows},
      {"cols", r.cols}}
      .dump();
}

StatusOr<ExecRequest> ExecRequestFromWire(const std::string& text) {
  AB_ASSIGN_OR_RETURN(json j, ParseObject(text, "exec request"));
  ExecRequest r;
  AB_RETURN_IF_ERROR(ReadArgv(j, r));
  AB_RETURN_IF_ERROR(ReadEnv(j, r));
  if (j.contains("cwd")) {
    std::string cwd;
    if (!ReadWireString(j["cwd"], &cwd) || cwd.rfind('/', 0) != 0) {
      return InvalidArgument("exec: \"cwd\" must be an absolute path");
    }
    r.cwd = std::move(cwd);
  }
  auto number = [&](const char* key, uint64_t fallback) -> StatusOr<uint64_t> {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_number_unsigned()) {
      return InvalidArgument(std::string("exec: \"") + key + "\" must be a non-negative integer");
    }
    return j[key].get<uint64_t>();
  };
  auto flag = [&](const char* key, bool* out) -> Status {
    if (!j.contains(key)) return OkStatus();
    if (!j[key].is_boolean()) {
      return InvalidArgument(std::string("exec: \"") + key + "\" must be true or false");
    }
    *out = j[key].get<bool>();
    return OkStatus();
  };
  AB_RETURN_IF_ERROR(flag("stdin", &r.pass_stdin));
  AB_RETURN_IF_ERROR(flag("stdin_frames", &r.stdin_frames));
  AB_RETURN_IF_ERROR(flag("detach", &r.detach));
  AB_RETURN_IF_ERROR(flag("interactive", &r.interactive));
  if (r.interactive && !r.detach) {
    return InvalidArgument("exec: \"interactive\" is for a detached exec");
  }
  AB_RETURN_IF_ERROR(flag("tty", &r.tty));
  if (r.stdin_frames && (!r.pass_stdin || r.detach)) {
    return InvalidArgument("exec: \"stdin_frames\" is for a foreground exec with \"stdin\"");
  }
  if (r.tty && (r.detach || r.pass_stdin)) {
    return InvalidArgument("exec: \"tty\" is for a foreground exec without \"stdin\"");
  }
  AB_ASSIGN_OR_RETURN(uint64_t rows, number("rows", r.rows));
  AB_ASSIGN_OR_RETURN(uint64_t cols, number("cols", r.cols));
  AB_RETURN_IF_ERROR(CheckWindowSize(rows, cols));
  r.rows = static_cast<uint16_t>(rows);
  r.cols = static_cast<uint16_t>(cols);
  AB_ASSIGN_OR_RETURN(uint64_t timeout_ms, number("timeout_ms", 60000));
  if (timeout_ms == 0 && !r.detach) return InvalidArgument("exec: \"timeout_ms\" must be positive");
  r.timeout_seconds = static_cast<double>(timeout_ms) / 1000;
  AB_ASSIGN_OR_RETURN(r.output_limit, number("output_limit", r.output_limit));
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
  // The error may quote a command name, which is bytes: sent as text, bad bytes replaced.
  if (r.reason == ExitReason::kError) {
    j["error"] = SanitizeUtf8(r.error);
    j["error_code"] = StatusCodeName(r.error_code);
  } else {
    j["effects"] = EffectsJson(r.effects);
  }
  // The names the sandbox's DNS catcher saw during the exec (printable ASCII already).
  std::vector<std::string> lookups = LookupNames(r.network);
  if (!lookups.empty() || r.network.connections_dropped > 0) {
    j["lookups"] = lookups;
    j["lookups_lost"] = r.network.connections_dropped;
  }
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
    auto exit_code = IntegerIn(r, "exit_code", 0, 255);
    if (!exit_code) return Internal("malformed exec result from the agent: bad exit_code");
    out.exit_code = static_cast<int>(*exit_code);
    if (!r.at("signal").is_null()) {
      auto signal = IntegerIn(r, "signal", 1, 64);
      if (!signal) return Internal("malformed exec result from the agent: bad signal");
      out.signal = static_cast<int>(*signal);
    }
    std::string reason = r.at("reason").get<std::string>();
    for (ExitReason e : {ExitReason::kExited, ExitReason::kSignaled, ExitReason::kTimeout,
                         ExitReason::kOom, ExitReason::kError}) {
      if (reason == ExitReasonName(e)) out.reason = e;
    }
    out.error = r.value("error", "");
    if (out.reason == ExitReason::kError) {
      out.error_code = StatusCodeFromName(r.value("error_code", ""));
    }
    out.duration_ms = r.at("duration_ms").get<double>();
    out.cpu_ms = r.at("cpu_ms").get<double>();
    if (!r.at("peak_memory_bytes").is_number_unsigned()) {
      return Internal("malformed exec result from the agent: bad peak_memory_bytes");
    }
    out.peak_memory_bytes = r.at("peak_memory_bytes").get<uint64_t>();
    out.stdout_truncated = r.at("stdout_truncated").get<bool>();
    out.stderr_truncated = r.at("stderr_truncated").get<bool>();
    out.limits_hit = r.at("limits_hit").get<std::vector<std::string>>();
    if (r.contains("effects")) {
      auto effects = EffectsFromJson(r["effects"]);
      if (!effects.ok()) return effects.status();
      out.effects = std::move(*effects);
    }
    AB_RETURN_IF_ERROR(ReadLookups(r, out.network));
  } catch (const json::exception& e) {
    return Internal(std::string("malformed exec result from the agent: ") + e.what());
  }
  return out;
}

}  // namespace agentbox
