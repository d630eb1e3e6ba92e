#include "http/server_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "base/json_limits.h"
#include "spec/policy_file.h"
#include "spec/units.h"

namespace agentbox {
namespace {

using nlohmann::json;

// The value of policy key `key` in a spec, as a double (sizes and counts are whole numbers).
double SpecValue(const SandboxSpec& spec, std::string_view key) {
  if (key == "memory") return static_cast<double>(spec.limits.memory_bytes);
  if (key == "pids") return static_cast<double>(spec.limits.pids);
  if (key == "cpus") return spec.limits.cpus;
  if (key == "tmp_size") return static_cast<double>(spec.tmp_bytes);
  if (key == "shm_size") return static_cast<double>(spec.shm_bytes);
  if (key == "disk_limit") return static_cast<double>(spec.limits.disk_bytes);
  if (key == "output_limit") return static_cast<double>(spec.limits.output_bytes);
  if (key == "timeout") return spec.limits.timeout_seconds;
  if (key == "egress_connections") return static_cast<double>(spec.limits.egress_connections);
  if (key == "egress_bytes") return static_cast<double>(spec.limits.egress_bytes);
  if (key == "max_snapshots") return static_cast<double>(spec.max_snapshots);
  if (key == "ttl" || key == "idle_timeout") {
    const double seconds = key == "ttl" ? spec.ttl_seconds : spec.idle_timeout_seconds;
    return seconds == 0 ? std::numeric_limits<double>::infinity() : seconds;
  }
  return static_cast<double>(spec.open_files);  // open_files
}

std::string Shown(const TenantLimit& limit, double value) {
  if (std::isinf(value)) return "none";
  if (limit.kind == FieldKind::kSize) return FormatSize(static_cast<uint64_t>(value));
  if (limit.kind == FieldKind::kCount) return std::to_string(static_cast<uint64_t>(value));
  if (limit.kind == FieldKind::kDuration) return FormatSeconds(value) + " seconds";
  return FormatSeconds(value);
}

json AsJson(const TenantLimit& limit, double value) {
  if (std::isinf(value)) return "none";
  if (limit.kind == FieldKind::kSize || limit.kind == FieldKind::kCount) {
    return static_cast<uint64_t>(value);
  }
  return value;
}

// One value of the config, read exactly as a policy file reads that key.
StatusOr<double> LimitValue(std::string_view key, const json& value) {
  json one = json::object();
  one[std::string(key)] = value;
  AB_ASSIGN_OR_RETURN(SpecOverlay overlay, ParsePolicyJson(one.dump(), "value"));
  SandboxSpec spec;
  ApplyOverlay(overlay, &spec);
  return SpecValue(spec, key);
}

// Strips ParsePolicyJson's 'value: key "memory": ' prefix, leaving the reason.
std::string Reason(const Status& status) {
  const std::string& m = status.message();
  const size_t colon = m.rfind("\": ");
  return colon == std::string::npos ? m : m.substr(colon + 3);
}

// The text as a JSON object whose objects hold no repeated key (nlohmann keeps the last one
// silently; a config that says "workers" twice is ambiguous).
StatusOr<json> ParseStrictObject(std::string_view text) {
  AB_RETURN_IF_ERROR(CheckJsonLimits(text, {.max_depth = 8}));
  std::vector<std::set<std::string>> seen;
  std::string duplicate;
  auto callback = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) seen.emplace_back();
    if (event == json::parse_event_t::object_end && !seen.empty()) seen.pop_back();
    if (event == json::parse_event_t::key && !seen.empty() && duplicate.empty() &&
        !seen.back().insert(parsed.get<std::string>()).second) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  json doc = json::parse(text, callback, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument("malformed JSON");
  if (!duplicate.empty()) return InvalidArgument("key \"" + duplicate + "\" appears twice");
  if (!doc.is_object()) return InvalidArgument("expected a JSON object");
  return doc;
}

Status SetCount(const json& value, const char* key, int min, int max, int* out) {
  if (!value.is_number_integer() || value.get<int64_t>() < min || value.get<int64_t>() > max) {
    return InvalidArgument(std::string("\"") + key + "\": expected a whole number from " +
                           std::to_string(min) + " to " + std::to_string(max));
  }
  *out = static_cast<int>(value.get<int64_t>());
  return OkStatus();
}

Status SetSeconds(const json& value, const char* key, double* out) {
  StatusOr<double> seconds = InvalidArgument("");
  if (value.is_number()) seconds = value.get<double>();
  if (value.is_string()) seconds = ParseDuration(value.get<std::string>());
  if (!seconds.ok() || !(*seconds > 0) || *seconds > 86400) {
    return InvalidArgument(std::string("\"") + key +
                           "\": expected seconds (or a duration like \"30s\") up to one day");
  }
  *out = *seconds;
  return OkStatus();
}

Status ApplyKey(const std::string& key, const json& value, ServerConfig* config) {
  if (key == "backend") {
    return config->backends.ConfigureDefault(value);
  } else if (key == "allowed_backends") {
    return config->backends.ConfigureAllowed(value);
  } else if (key == "workspace_root") {
    if (!value.is_string() || value.get<std::string>().empty() ||
        value.get<std::string>()[0] != '/') {
      return InvalidArgument("\"workspace_root\": expected an absolute directory path");
    }
    config->workspace_root = value.get<std::string>();
  } else if (key == "allow_host_paths") {
    if (!value.is_boolean()) return InvalidArgument("\"allow_host_paths\": expected true or false");
    config->allow_host_paths = value.get<bool>();
  } else if (key == "limits") {
    return config->limits.Configure(value, "\"limits\"");
  } else if (key == "allow_hosts") {
    return config->limits.ConfigureAllowHosts(value, "\"allow_hosts\"");
  } else if (key == "max_connections") {
    return SetCount(value, "max_connections", 1, kMaxConnections, &config->max_connections);
  } else if (key == "max_connections_per_peer") {
    return SetCount(value, "max_connections_per_peer", 1, kMaxConnections,
                    &config->max_connections_per_peer);
  } else if (key == "workers") {
    return SetCount(value, "workers", 1, 4096, &config->workers);
  } else if (key == "head_timeout") {
    return SetSeconds(value, "head_timeout", &config->head_timeout_seconds);
  } else if (key == "body_timeout") {
    return SetSeconds(value, "body_timeout", &config->body_timeout_seconds);
  } else if (key == "idle_timeout") {
    return SetSeconds(value, "idle_timeout", &config->idle_timeout_seconds);
  } else if (key == "mcp_bash_output_chars") {
    return SetCount(value, "mcp_bash_output_chars", 0, 100'000'000, &config->mcp_bash_output_chars);
  } else if (key == "access_log") {
    if (!value.is_string()) {
      return InvalidArgument("\"access_log\": expected a file path, \"-\" (stderr) or \"\" (none)");
    }
    config->access_log = value.get<std::string>();
  } else if (key == "mcp_session_idle_timeout") {
    return SetSeconds(value, "mcp_session_idle_timeout", &config->mcp_session_idle_timeout_seconds);
  } else {
    return InvalidArgument("unknown key \"" + key +
                           "\" (known: backend, allowed_backends, workspace_root, "
                           "allow_host_paths, allow_hosts, limits, "
                           "max_connections, max_connections_per_peer, workers, head_timeout, "
                           "body_timeout, idle_timeout, mcp_session_idle_timeout, "
                           "mcp_bash_output_chars, access_log)");
  }
  return OkStatus();
}

}  // namespace

TenantLimits TenantLimits::BuiltIn(uint64_t open_files_hard_limit) {
  const double open_files = static_cast<double>(std::max<uint64_t>(open_files_hard_limit, 16));
  TenantLimits t;
  const TenantLimit table[] = {
      {"memory", FieldKind::kSize, 512.0 * kMiB, 8.0 * kGiB},
      {"pids", FieldKind::kCount, 256, 4096},
      {"cpus", FieldKind::kDecimal, 1, 8},
      {"tmp_size", FieldKind::kSize, 256.0 * kMiB, 4.0 * kGiB},
      {"shm_size", FieldKind::kSize, 64.0 * kMiB, 1.0 * kGiB},
      {"disk_limit", FieldKind::kSize, 1.0 * kGiB, 16.0 * kGiB},
      {"output_limit", FieldKind::kSize, 1.0 * kMiB, 16.0 * kMiB},
      {"timeout", FieldKind::kDuration, 60, 3600},
      // No tenant's sandbox lives for ever unless the operator says so ("none").
      {"ttl", FieldKind::kDuration, 86400, 7 * 86400},
      // Within the ttl anyway; an operator may end unused sandboxes sooner.
      {"idle_timeout", FieldKind::kDuration, std::numeric_limits<double>::infinity(),
       std::numeric_limits<double>::infinity()},
      // More than the hard limit cannot be given: setrlimit would fail at create.
      {"open_files", FieldKind::kCount, std::min(1024.0, open_files),
       std::min(65536.0, open_files)},
      {"egress_connections", FieldKind::kCount, 64, 256},
      {"egress_bytes", FieldKind::kSize, 1.0 * kGiB, 16.0 * kGiB},
      // Each may pin up to a workspace's worth of the pool (docs/policy.md "max_snapshots").
      {"max_snapshots", FieldKind::kCount, 16, 64},
  };
  std::copy(std::begin(table), std::end(table), t.limits_);
  return t;
}

const TenantLimit& TenantLimits::Get(std::string_view key) const {
  for (const TenantLimit& l : limits_) {
    if (l.key == key) return l;
  }
  return limits_[0];  // every caller names a key of the table
}

Status TenantLimits::Configure(const json& limits, const std::string& where) {
  if (!limits.is_object()) return InvalidArgument(where + ": expected an object of limits");
  for (const auto& [key, entry] : limits.items()) {
    const std::string at = where + ": \"" + key + "\"";
    // A named copy: clang before 16 cannot capture a structured binding.
    const std::string& name = key;
    auto it = std::find_if(std::begin(limits_), std::end(limits_),
                           [&name](const TenantLimit& l) { return l.key == name; });
    if (it == std::end(limits_)) {
      return InvalidArgument(at +
                             ": not a limit (known: memory, pids, cpus, tmp_size, shm_size, "
                             "disk_limit, output_limit, timeout, ttl, idle_timeout, open_files, "
                             "egress_connections, egress_bytes, max_snapshots)");
    }
    if (!entry.is_object()) return InvalidArgument(at + ": expected {\"default\": V, \"max\": V}");
    TenantLimit next = *it;
    for (const auto& [field, value] : entry.items()) {
      if (field != "default" && field != "max") {
        return InvalidArgument(at + ": unknown key \"" + field + "\" (default, max)");
      }
      auto parsed = LimitValue(key, value);
      if (!parsed.ok()) return InvalidArgument(at + "." + field + ": " + Reason(parsed.status()));
      (field == "default" ? next.default_value : next.max) = *parsed;
    }
    if (key == "disk_limit" && (next.default_value == 0 || next.max == 0)) {
      return InvalidArgument(at + ": 0 (no disk limit) cannot be a server's default or ceiling");
    }
    if (next.default_value > next.max) {
      return InvalidArgument(at + ": the default " + Shown(next, next.default_value) +
                             " is over the max " + Shown(next, next.max));
    }
    *it = next;
  }
  return OkStatus();
}

Status TenantLimits::CheckOne(const TenantLimit& limit, double value) const {
  if (limit.key == "disk_limit" && value == 0) {
    return InvalidArgument("\"disk_limit\": 0 (no limit) is over this server's ceiling of " +
                           Shown(limit, limit.max));
  }
  if (!(value <= limit.max)) {
    return InvalidArgument("\"" + std::string(limit.key) + "\": " + Shown(limit, value) +
                           " is over this server's ceiling of " + Shown(limit, limit.max));
  }
  return OkStatus();
}

Status TenantLimits::ApplyToPolicy(json* policy) const {
  // A default equal to agentbox's own stays out of the policy, so the sandbox knows nobody asked
  // for it (a built-in disk limit that a host directory cannot hold is reported, not refused).
  const SandboxSpec builtin;
  for (const TenantLimit& limit : limits_) {
    const std::string key(limit.key);
    if (policy->contains(key) || limit.default_value == SpecValue(builtin, key)) continue;
    (*policy)[key] = AsJson(limit, limit.default_value);
  }
  AB_ASSIGN_OR_RETURN(SpecOverlay overlay, ParsePolicyJson(policy->dump(), "the body"));
  SandboxSpec spec;
  ApplyOverlay(overlay, &spec);
  for (const TenantLimit& limit : limits_) {
    AB_RETURN_IF_ERROR(CheckOne(limit, SpecValue(spec, limit.key)));
  }
  return CheckAllowHosts(spec);
}

Status TenantLimits::ConfigureAllowHosts(const json& patterns, const std::string& where) {
  if (!patterns.is_array()) return InvalidArgument(where + ": expected a list of host patterns");
  std::vector<HostPattern> parsed;
  for (const json& entry : patterns) {
    if (!entry.is_string()) return InvalidArgument(where + ": expected host pattern strings");
    StatusOr<HostPattern> p = ParseHostPattern(entry.get<std::string>());
    if (!p.ok()) return InvalidArgument(where + ": " + p.status().message());
    parsed.push_back(*p);
  }
  allow_hosts_ = std::move(parsed);
  return OkStatus();
}

Status TenantLimits::CheckAllowHosts(const SandboxSpec& spec) const {
  for (const std::string& text : spec.allow_hosts) {
    AB_ASSIGN_OR_RETURN(HostPattern asked, ParseHostPattern(text));
    const bool within = std::any_of(allow_hosts_.begin(), allow_hosts_.end(),
                                    [&](const HostPattern& p) { return PatternWithin(asked, p); });
    if (!within) {
      return InvalidArgument("\"allow_hosts\": \"" + text +
                             "\" is not within this server's allow_hosts" +
                             (allow_hosts_.empty() ? " (none: the operator opens no egress)" : ""));
    }
  }
  return OkStatus();
}

Status TenantLimits::CheckTimeout(double seconds) const {
  return CheckOne(Get("timeout"), seconds);
}

Status TenantLimits::CheckOutputLimit(uint64_t bytes) const {
  return CheckOne(Get("output_limit"), static_cast<double>(bytes));
}

double TenantLimits::ClampTimeout(double seconds) const {
  return std::min(seconds, Get("timeout").max);
}

double TenantLimits::DetachedTimeout() const {
  const double ceiling = Get("timeout").max;
  return std::isinf(ceiling) ? 0 : ceiling;
}

uint64_t TenantLimits::ClampOutputLimit(uint64_t bytes) const {
  return std::min(bytes, static_cast<uint64_t>(Get("output_limit").max));
}

Status ParseServerConfig(std::string_view text, std::string_view source, ServerConfig* config) {
  const std::string where(source);
  auto doc = ParseStrictObject(text);
  if (!doc.ok()) return InvalidArgument(where + ": " + doc.status().message());
  ServerConfig next = *config;
  for (const auto& [key, value] : doc->items()) {
    AB_RETURN_IF_ERROR(ApplyKey(key, value, &next).WithContext(where));
  }
  *config = next;
  return OkStatus();
}

Status ApplyServerDefaults(const ServerConfig& config, json* policy) {
  AB_RETURN_IF_ERROR(config.backends.ApplyToPolicy(policy));
  return config.limits.ApplyToPolicy(policy);
}

}  // namespace agentbox
