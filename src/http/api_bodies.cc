#include "http/api_bodies.h"

#include <signal.h>

#include <algorithm>
#include <set>

#include "base/utf8.h"
#include "core/state_store.h"
#include "spec/spec_json.h"
#include "spec/units.h"

namespace agentbox {
namespace {

using nlohmann::json;

Status CheckKeys(const json& body, const std::set<std::string>& allowed) {
  for (const auto& [key, value] : body.items()) {
    if (!allowed.count(key)) return InvalidArgument("unknown key \"" + key + "\"");
  }
  return OkStatus();
}

Status ParseArgv(const json& v, ExecRequest* req) {
  if (!v.is_array() || v.empty()) return InvalidArgument("\"argv\" must be a non-empty array");
  req->argv.clear();
  for (const json& a : v) {
    if (!a.is_string()) return InvalidArgument("\"argv\" must hold strings only");
    req->argv.push_back(a.get<std::string>());
  }
  return OkStatus();
}

Status ParseEnv(const json& v, ExecRequest* req) {
  if (!v.is_object()) return InvalidArgument("\"env\" must be an object of strings");
  for (const auto& [key, value] : v.items()) {
    if (key.empty() || key.find('=') != std::string::npos || !value.is_string()) {
      return InvalidArgument("\"env\": bad entry \"" + key + "\"");
    }
    // A named copy: clang before 16 cannot capture a structured binding.
    const std::string& name = key;
    std::erase_if(req->env, [&name](const auto& kv) { return kv.first == name; });
    req->env.emplace_back(key, value.get<std::string>());
  }
  return OkStatus();
}

// A number of seconds, or a duration string ("30s"), within the one-week bound of every timeout.
Status ParseTimeoutValue(const json& v, double* out) {
  StatusOr<double> value = InvalidArgument("");
  if (v.is_number()) {
    double seconds = v.get<double>();
    Status bounded = CheckTimeout(seconds);
    value = bounded.ok() ? StatusOr<double>(seconds) : StatusOr<double>(bounded);
  } else if (v.is_string()) {
    value = ParseTimeout(v.get<std::string>());
  }
  if (!value.ok()) {
    return InvalidArgument(
        "\"timeout\": expected a positive number of seconds or a duration, "
        "at most one week");
  }
  *out = *value;
  return OkStatus();
}

// A positive number of bytes (a fraction is cut to whole bytes), or a size string ("1M"). A
// JSON number beyond 64 bits is refused: converting it would be undefined behaviour.
Status ParseSizeValue(const json& v, uint64_t* out) {
  StatusOr<uint64_t> value = InvalidArgument("");
  if (v.is_number_unsigned() && v.get<uint64_t>() > 0) {
    value = v.get<uint64_t>();
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (d >= 1 && d < 18446744073709551616.0) value = static_cast<uint64_t>(d);
  } else if (v.is_string()) {
    value = ParseSize(v.get<std::string>());
  }
  if (!value.ok()) {
    return InvalidArgument("\"output_limit\": expected a positive number of bytes or a size");
  }
  *out = *value;
  return OkStatus();
}

StatusOr<StreamFormat> ParseStream(const json& body, std::string_view accept) {
  if (!body.contains("stream")) {
    if (accept.find("application/x-ndjson") != std::string_view::npos) return StreamFormat::kNdjson;
    if (accept.find("text/event-stream") != std::string_view::npos) return StreamFormat::kSse;
    return StreamFormat::kNone;
  }
  const json& v = body["stream"];
  if (v == "ndjson") return StreamFormat::kNdjson;
  if (v == "sse") return StreamFormat::kSse;
  if (v == "none" || v == false) return StreamFormat::kNone;
  return InvalidArgument("\"stream\" must be \"ndjson\", \"sse\" or \"none\"");
}

// The event's JSON is spliced by hand so "type" comes first and the result keeps the key order
// of docs/contract.md §1 (a json object would sort its keys).
std::string Frame(StreamFormat format, std::string_view type, const std::string& rest) {
  std::string line = "{\"type\":\"" + std::string(type) + "\"," + rest + "}";
  if (format == StreamFormat::kSse)
    return "event: " + std::string(type) + "\ndata: " + line + "\n\n";
  return line + "\n";
}

// A workspace NAME beneath the root, or (when the operator allows it) an absolute host path.
StatusOr<std::string> ResolveWorkspace(const std::string& workspace, const HostPathRules& rules) {
  if (workspace.starts_with('/')) {
    if (rules.allow_host_paths) return workspace;
    return PermissionDenied(
        "\"workspace\" names a host path: not allowed on this server (no "
        "--allow-host-paths); give a workspace name" +
        std::string(rules.workspace_root.empty() ? "" : " beneath its root"));
  }
  if (rules.workspace_root.empty()) {
    return PermissionDenied(
        "\"workspace\": this server takes no workspace names (no --workspace-root): leave it "
        "out for a private workspace");
  }
  if (!ValidateSandboxName(workspace).ok()) {
    return InvalidArgument(
        "\"workspace\": a name beneath the server's workspace root: 1-64 of "
        "A-Z a-z 0-9 _ . -, starting with a letter or digit (no '/', no "
        "\"..\"), got \"" +
        SanitizeUtf8(workspace.substr(0, 80)) + "\"");
  }
  return rules.workspace_root + "/" + rules.tenant_dir + "/" + workspace;
}

}  // namespace

StatusOr<ExecBody> ParseExecBody(const json& body, const ExecRequest& defaults,
                                 std::string_view accept) {
  if (!body.is_object()) return InvalidArgument("the body must be a JSON object");
  AB_RETURN_IF_ERROR(CheckKeys(body, {"argv", "env", "cwd", "timeout", "output_limit", "stdin",
                                      "stream", "detach", "interactive", "rollback_on_failure"}));
  ExecBody out;
  out.request = defaults;
  if (!body.contains("argv")) return InvalidArgument("\"argv\" is required");
  AB_RETURN_IF_ERROR(ParseArgv(body["argv"], &out.request));
  if (body.contains("env")) AB_RETURN_IF_ERROR(ParseEnv(body["env"], &out.request));
  if (body.contains("cwd")) {
    if (!body["cwd"].is_string() || body["cwd"].get<std::string>().empty()) {
      return InvalidArgument("\"cwd\" must be a non-empty string");
    }
    out.request.cwd = body["cwd"].get<std::string>();
  }
  if (body.contains("timeout")) {
    AB_RETURN_IF_ERROR(ParseTimeoutValue(body["timeout"], &out.request.timeout_seconds));
  }
  if (body.contains("output_limit")) {
    AB_RETURN_IF_ERROR(ParseSizeValue(body["output_limit"], &out.request.output_limit));
  }
  if (body.contains("stdin")) {
    if (!body["stdin"].is_string()) return InvalidArgument("\"stdin\" must be a string");
    out.stdin_data = body["stdin"].get<std::string>();
  }
  out.request.pass_stdin = out.stdin_data.has_value();
  for (const char* key : {"detach", "interactive", "rollback_on_failure"}) {
    if (body.contains(key) && !body[key].is_boolean()) {
      return InvalidArgument("\"" + std::string(key) + "\" must be true or false");
    }
  }
  out.detach = body.value("detach", false);
  out.interactive = body.value("interactive", false);
  out.rollback_on_failure = body.value("rollback_on_failure", false);
  if (out.rollback_on_failure && out.detach) {
    return InvalidArgument(
        "\"rollback_on_failure\" with \"detach\": a background process's end is not this "
        "request's, so there is no failure to roll back when it answers");
  }
  if (out.interactive && !out.detach) {
    return InvalidArgument(
        "\"interactive\" is for a detached process (\"detach\": true); a plain exec takes "
        "\"stdin\"");
  }
  if (out.detach) {
    if (out.stdin_data) {
      return InvalidArgument(
          "\"stdin\" with \"detach\": start it \"interactive\" and POST its input to "
          ".../processes/{proc}/stdin");
    }
    if (body.contains("stream") && body["stream"] != "none" && body["stream"] != false) {
      return InvalidArgument(
          "\"stream\" with \"detach\": a detached process's output is read with "
          ".../processes/{proc}/logs");
    }
    return out;  // its answer is the process object, whatever the Accept says
  }
  AB_ASSIGN_OR_RETURN(out.stream, ParseStream(body, accept));
  return out;
}

StatusOr<CreateBody> ParseCreateBody(const json& body, const HostPathRules& rules) {
  if (!body.is_object()) return InvalidArgument("the body must be a JSON object");
  CreateBody out;
  out.policy = body;
  if (body.contains("name")) {
    if (!body["name"].is_string()) return InvalidArgument("\"name\" must be a string");
    out.name = body["name"].get<std::string>();
    out.policy.erase("name");
  }
  if (out.policy.contains("rootfs") && !rules.allow_host_paths) {
    return PermissionDenied(
        "\"rootfs\" names a host path: not allowed on this server (no --allow-host-paths)");
  }
  if (out.policy.contains("workspace") && out.policy["workspace"].is_string()) {
    AB_ASSIGN_OR_RETURN(out.policy["workspace"],
                        ResolveWorkspace(out.policy["workspace"].get<std::string>(), rules));
  }
  auto spec = SpecFromPolicyJson(out.policy);
  if (!spec.ok()) return InvalidArgument(spec.status().message());
  return out;
}

std::string StreamEvent(StreamFormat format, std::string_view type, std::string_view data) {
  return Frame(format, type, "\"data\":" + json(SanitizeUtf8(data)).dump());
}

std::string StreamResultEvent(StreamFormat format, const ExecResult& result) {
  return Frame(format, "result", "\"result\":" + ExecResultToJson(result));
}

StatusOr<int> ParseKillBody(const json& body, bool empty) {
  if (empty) return SIGTERM;
  if (!body.is_object()) return InvalidArgument("the body must be a JSON object");
  AB_RETURN_IF_ERROR(CheckKeys(body, {"signal"}));
  if (!body.contains("signal")) return SIGTERM;
  const json& v = body["signal"];
  std::string text;
  if (v.is_string()) {
    text = v.get<std::string>();
  } else if (v.is_number_unsigned()) {
    text = std::to_string(v.get<uint64_t>());
  } else {
    return InvalidArgument("\"signal\" must be a name (\"TERM\") or a number");
  }
  auto signal = ParseSignal(text);
  if (!signal.ok()) return InvalidArgument("\"signal\": " + signal.status().message());
  return *signal;
}

StatusOr<LogsQuery> ParseLogsQuery(bool follow, std::string_view since, std::string_view stream,
                                   std::string_view accept) {
  LogsQuery out;
  out.follow = follow;
  if (!since.empty()) {
    // Digits only, at most 19 of them: always within 64 bits.
    if (since.size() > 19 ||
        !std::all_of(since.begin(), since.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return InvalidArgument("\"since\" must be a byte offset (a previous stream's \"next\")");
    }
    out.since = std::stoull(std::string(since));
  }
  if (stream == "sse") {
    out.format = StreamFormat::kSse;
  } else if (stream.empty()) {
    out.format = accept.find("text/event-stream") != std::string_view::npos ? StreamFormat::kSse
                                                                            : StreamFormat::kNdjson;
  } else if (stream != "ndjson") {
    return InvalidArgument("\"stream\" must be \"ndjson\" or \"sse\"");
  }
  return out;
}

StatusOr<double> ParseWaitTimeout(std::string_view text) {
  if (text.empty()) return 0.0;
  auto seconds = ParseTimeout(text);
  if (!seconds.ok()) {
    return InvalidArgument(
        "\"timeout\": expected a positive number of seconds or a duration, at most one week");
  }
  return *seconds;
}

std::string ProcessListJson(const std::vector<ProcessInfo>& processes) {
  std::string out = "{\"processes\":[";
  for (size_t i = 0; i < processes.size(); ++i) {
    out += (i ? "," : "") + ProcessInfoToJson(processes[i]);
  }
  return out + "]}";
}

std::string ProcessEndEvent(StreamFormat format, const ProcessInfo& process, uint64_t from,
                            uint64_t next) {
  return Frame(format, "process",
               "\"from\":" + std::to_string(from) + ",\"next\":" + std::to_string(next) +
                   ",\"process\":" + ProcessInfoToJson(process));
}

std::string StreamErrorEvent(StreamFormat format, const Status& error) {
  json rest = {{"error", error.message()}, {"code", StatusCodeName(error.code())}};
  std::string text = rest.dump(-1, ' ', false, json::error_handler_t::replace);
  // {"code":..,"error":..} without its braces, after "type".
  return Frame(format, "error", text.substr(1, text.size() - 2));
}

std::string_view StreamKeepAlive(StreamFormat format) {
  return format == StreamFormat::kSse ? ": keep-alive\n\n" : "";
}

std::string Utf8Carry::Take(std::string_view chunk) {
  std::string text = std::exchange(pending_, {});
  text.append(chunk);
  // Walk back over at most 3 continuation bytes to the last lead byte; keep it if its
  // sequence is not complete yet.
  size_t i = text.size();
  size_t back = 0;
  while (i > 0 && back < 3 && (static_cast<unsigned char>(text[i - 1]) & 0xC0) == 0x80) {
    --i;
    ++back;
  }
  if (i == 0) return text;
  unsigned char lead = static_cast<unsigned char>(text[i - 1]);
  size_t need = lead >= 0xF0 && lead < 0xF8 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (need > 1 && back + 1 < need) {
    pending_ = text.substr(i - 1);
    text.resize(i - 1);
  }
  return text;
}

}  // namespace agentbox
