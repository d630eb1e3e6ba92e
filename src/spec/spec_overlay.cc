#include "spec/spec_overlay.h"

#include <limits>

#include "base/utf8.h"
#include "spec/host_pattern.h"
#include "spec/units.h"

namespace agentbox {
namespace {

constexpr uint64_t kNoMax = std::numeric_limits<uint64_t>::max();
constexpr double kMaxCpus = 1024;
constexpr double kMaxTtlSeconds = 366.0 * 86400;
// clock_start: a machine up ten years is far beyond any real one, and far within a time
// namespace's offsets.
constexpr double kMaxClockStartSeconds = 10 * 366.0 * 86400;

constexpr SpecField kFields[] = {
    {"backend", FieldKind::kString},
    {"image", FieldKind::kString},
    {"runtime", FieldKind::kString},
    {"workspace", FieldKind::kString},
    {"rootfs", FieldKind::kString},
    {"timeout", FieldKind::kDuration},
    {"memory", FieldKind::kSize},
    {"pids", FieldKind::kCount},
    {"cpus", FieldKind::kDecimal},
    {"output_limit", FieldKind::kSize},
    {"disk_limit", FieldKind::kSize},
    {"env", FieldKind::kEnv},
    {"cwd", FieldKind::kString},
    {"stdin", FieldKind::kBool},
    {"tmp_size", FieldKind::kSize},
    {"shm_size", FieldKind::kSize},
    {"open_files", FieldKind::kCount},
    {"ttl", FieldKind::kDuration},
    {"idle_timeout", FieldKind::kDuration},
    {"allow_hosts", FieldKind::kHostList},
    {"egress_connections", FieldKind::kCount},
    {"egress_bytes", FieldKind::kSize},
    {"session_log", FieldKind::kBool},
    {"max_snapshots", FieldKind::kCount},
    {"tz", FieldKind::kString},
    {"locale", FieldKind::kString},
    {"clock_start", FieldKind::kDuration},
    {"random_seed", FieldKind::kCount},
};

struct UintRange {
  std::string_view key;
  std::optional<uint64_t> SpecOverlay::*field;
  uint64_t min;
  uint64_t max;
};

// Minimums keep a sandbox usable and, for tmpfs, safe: a tmpfs "size=0" means UNLIMITED.
constexpr UintRange kSizeRanges[] = {
    {"memory", &SpecOverlay::memory_bytes, 4 * kMiB, kNoMax},
    {"output_limit", &SpecOverlay::output_bytes, 0, kNoMax},
    {"disk_limit", &SpecOverlay::disk_bytes, 0, kNoMax},
    {"tmp_size", &SpecOverlay::tmp_bytes, 1 * kMiB, kNoMax},
    {"shm_size", &SpecOverlay::shm_bytes, 1 * kMiB, kNoMax},
    {"egress_bytes", &SpecOverlay::egress_bytes, 0, kNoMax},
};
// open_files: a dynamically linked program needs a few fds beyond 0-2 just to start; the upper
// bound is the kernel's default fs.nr_open.
constexpr UintRange kCountRanges[] = {
    {"pids", &SpecOverlay::pids, 1, 1000000},
    {"open_files", &SpecOverlay::open_files, 32, 1048576},
    // The proxy holds two fds and two 64 KiB buffers per connection (egress/proxy.h).
    {"egress_connections", &SpecOverlay::egress_connections, 1, 1024},
    // Each snapshot is a btrfs subvolume; a sandbox's storage stays bounded (docs/policy.md).
    {"max_snapshots", &SpecOverlay::max_snapshots, 0, 1000},
    // Any 64-bit value seeds the stream (proc/seeded_random.h).
    {"random_seed", &SpecOverlay::random_seed, 0, kNoMax},
};

const UintRange* FindRange(std::span<const UintRange> ranges, std::string_view key) {
  for (const UintRange& r : ranges) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

Status SetUint(const UintRange* range, uint64_t value, bool is_size, SpecOverlay* overlay) {
  if (range == nullptr) return Internal("not a numeric key");
  const auto show = [is_size](uint64_t v) { return is_size ? FormatSize(v) : std::to_string(v); };
  if (value < range->min) {
    return InvalidArgument("must be at least " + show(range->min) + ", got " + show(value));
  }
  if (value > range->max) {
    return InvalidArgument("must be at most " + show(range->max) + ", got " + show(value));
  }
  overlay->*(range->field) = value;
  return OkStatus();
}

bool HasNul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

Status SetEnvFromText(std::string_view text, SpecOverlay* overlay) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return InvalidArgument("expected KEY=VALUE, got \"" + std::string(text) + "\"");
  }
  return AddEnvVar(text.substr(0, eq), text.substr(eq + 1), overlay);
}

}  // namespace

std::span<const SpecField> SpecFields() { return kFields; }

const SpecField* FindSpecField(std::string_view key) {
  for (const SpecField& f : kFields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

std::string SpecFieldList() {
  std::string list;
  for (const SpecField& f : kFields) {
    if (!list.empty()) list += ", ";
    list += f.key;
  }
  return list;
}

Status SetFieldFromText(std::string_view key, std::string_view text, SpecOverlay* overlay) {
  const SpecField* field = FindSpecField(key);
  if (field == nullptr) return InvalidArgument("unknown key \"" + std::string(key) + "\"");
  switch (field->kind) {
    case FieldKind::kString:
      return SetStringField(key, text, overlay);
    case FieldKind::kEnv:
      return SetEnvFromText(text, overlay);
    case FieldKind::kHostList:
      return AddAllowHost(text, overlay);
    case FieldKind::kBool:
      if (text == "true" || text == "false") return SetBoolField(key, text == "true", overlay);
      return InvalidArgument("expected true or false, got \"" + std::string(text) + "\"");
    case FieldKind::kSize: {
      if (key == "disk_limit" && text == "none") return SetSizeField(key, kNoDiskLimit, overlay);
      AB_ASSIGN_OR_RETURN(uint64_t bytes, ParseSize(text));
      return SetSizeField(key, bytes, overlay);
    }
    case FieldKind::kCount: {
      AB_ASSIGN_OR_RETURN(uint64_t count, ParseCount(text));
      return SetCountField(key, count, overlay);
    }
    case FieldKind::kDuration: {
      if (key == "ttl" && text == "none") {
        overlay->ttl_seconds = 0;  // what the spec holds for none
        return OkStatus();
      }
      if (key == "idle_timeout" && text == "none") {
        overlay->idle_timeout_seconds = 0;
        return OkStatus();
      }
      AB_ASSIGN_OR_RETURN(double seconds, ParseDuration(text));
      return SetDurationField(key, seconds, overlay);
    }
    case FieldKind::kDecimal: {
      AB_ASSIGN_OR_RETURN(double value, ParsePositiveDecimal(text));
      return SetDecimalField(key, value, overlay);
    }
  }
  return Internal("unhandled field kind");
}

Status SetSizeField(std::string_view key, uint64_t bytes, SpecOverlay* overlay) {
  return SetUint(FindRange(kSizeRanges, key), bytes, /*is_size=*/true, overlay);
}

Status SetCountField(std::string_view key, uint64_t count, SpecOverlay* overlay) {
  return SetUint(FindRange(kCountRanges, key), count, /*is_size=*/false, overlay);
}

Status SetDurationField(std::string_view key, double seconds, SpecOverlay* overlay) {
  if (key == "ttl" || key == "idle_timeout") {
    // "none" is the one way to say none (0 would read as "at once" to some); otherwise at least a
    // second (a sandbox removed before it can be used is a mistake) and at most a year.
    if (!(seconds >= 1 && seconds <= kMaxTtlSeconds)) {
      return InvalidArgument("must be \"none\" or 1 to " + FormatSeconds(kMaxTtlSeconds) +
                             " seconds (one year), got " + FormatSeconds(seconds));
    }
    (key == "ttl" ? overlay->ttl_seconds : overlay->idle_timeout_seconds) = seconds;
    return OkStatus();
  }
  if (key == "clock_start") {
    if (!(seconds >= 0 && seconds <= kMaxClockStartSeconds)) {
      return InvalidArgument("must be 0 to " + FormatSeconds(kMaxClockStartSeconds) +
                             " seconds, got " + FormatSeconds(seconds));
    }
    overlay->clock_start_seconds = seconds;
    return OkStatus();
  }
  if (key != "timeout") return Internal("not a duration key");
  AB_RETURN_IF_ERROR(CheckTimeout(seconds));
  overlay->timeout_seconds = seconds;
  return OkStatus();
}

Status SetDecimalField(std::string_view key, double value, SpecOverlay* overlay) {
  if (key != "cpus") return Internal("not a decimal key");
  if (!(value > 0)) return InvalidArgument("must be more than 0");
  if (!(value <= kMaxCpus)) {
    return InvalidArgument("must be at most 1024, got " + FormatSeconds(value));
  }
  overlay->cpus = value;
  return OkStatus();
}

Status SetBoolField(std::string_view key, bool value, SpecOverlay* overlay) {
  if (key == "stdin") {
    overlay->pass_stdin = value;
  } else if (key == "session_log") {
    overlay->session_log = value;
  } else {
    return Internal("not a boolean key");
  }
  return OkStatus();
}

Status SetStringField(std::string_view key, std::string_view value, SpecOverlay* overlay) {
  if (HasNul(value)) return InvalidArgument("must not contain a NUL byte");
  if (value.empty()) return InvalidArgument("must not be empty");
  const std::string v(value);
  if (key == "backend") {
    overlay->backend = BackendFromName(v);
    if (!overlay->backend) {
      return InvalidArgument("expected \"native\", \"docker\" or \"kubernetes\", got \"" + v +
                             "\"");
    }
  } else if (key == "image") {
    overlay->image = v;
  } else if (key == "runtime") {
    overlay->runtime = v;
  } else if (key == "workspace") {
    overlay->workspace = v;
  } else if (key == "rootfs") {
    overlay->rootfs = v;
  } else if (key == "cwd") {
    if (v[0] != '/') return InvalidArgument("must be an absolute path, got \"" + v + "\"");
    overlay->cwd = v;
  } else if (key == "tz" || key == "locale") {
    // Sugar for the environment, so the policy (and its hash) says it once: TZ, or LANG and
    // LC_ALL. A name, not a path or a shell word.
    if (v.size() > 64 || v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                             "0123456789_+-./:@") != std::string::npos) {
      return InvalidArgument("expected a zone or locale name like \"UTC\" or \"C.UTF-8\", got \"" +
                             v + "\"");
    }
    if (key == "tz") return AddEnvVar("TZ", v, overlay);
    AB_RETURN_IF_ERROR(AddEnvVar("LANG", v, overlay));
    return AddEnvVar("LC_ALL", v, overlay);
  } else {
    return Internal("not a string key");
  }
  return OkStatus();
}

Status RequireUtf8Strings(const SpecOverlay& o) {
  auto check = [](const std::optional<std::string>& v, const char* key) -> Status {
    if (!v || IsValidUtf8(*v)) return OkStatus();
    return InvalidArgument(std::string(key) +
                           ": not valid UTF-8 (a sandbox's policy is stored as JSON)");
  };
  AB_RETURN_IF_ERROR(check(o.image, "--image"));
  AB_RETURN_IF_ERROR(check(o.workspace, "--workspace"));
  AB_RETURN_IF_ERROR(check(o.rootfs, "--rootfs"));
  AB_RETURN_IF_ERROR(check(o.cwd, "--cwd"));
  for (const auto& [name, value] : o.env) {
    if (!IsValidUtf8(name) || !IsValidUtf8(value)) {
      return InvalidArgument("--env: " + SanitizeUtf8(name) +
                             ": not valid UTF-8 (a sandbox's policy is stored as JSON)");
    }
  }
  return OkStatus();
}

Status AddAllowHost(std::string_view pattern, SpecOverlay* overlay) {
  if (HasNul(pattern)) return InvalidArgument("must not contain a NUL byte");
  AB_ASSIGN_OR_RETURN(HostPattern parsed, ParseHostPattern(pattern));
  std::string canonical = FormatHostPattern(parsed);
  for (const std::string& have : overlay->allow_hosts) {
    if (have == canonical) return OkStatus();
  }
  overlay->allow_hosts.push_back(std::move(canonical));
  return OkStatus();
}

Status AddEnvVar(std::string_view name, std::string_view value, SpecOverlay* overlay) {
  if (name.empty()) return InvalidArgument("environment variable name must not be empty");
  if (name.find('=') != std::string_view::npos || HasNul(name)) {
    return InvalidArgument("environment variable name \"" + std::string(name) +
                           "\" must not contain '=' or NUL");
  }
  if (HasNul(value)) {
    return InvalidArgument("value of environment variable \"" + std::string(name) +
                           "\" must not contain NUL");
  }
  overlay->env.emplace_back(name, value);
  return OkStatus();
}

void ApplyOverlay(const SpecOverlay& o, SandboxSpec* spec) {
  if (o.backend) spec->backend = *o.backend;
  if (o.image) {
    spec->image = *o.image;
    spec->image_given = true;
  }
  if (o.runtime) spec->runtime = *o.runtime;
  if (o.workspace) spec->workspace = *o.workspace;
  if (o.rootfs) spec->rootfs = *o.rootfs;
  if (o.timeout_seconds) spec->limits.timeout_seconds = *o.timeout_seconds;
  if (o.memory_bytes) spec->limits.memory_bytes = *o.memory_bytes;
  if (o.pids) {
    spec->limits.pids = *o.pids;
    spec->pids_limit_explicit = true;
  }
  if (o.cpus) spec->limits.cpus = *o.cpus;
  if (o.output_bytes) spec->limits.output_bytes = *o.output_bytes;
  if (o.disk_bytes) {
    spec->limits.disk_bytes = *o.disk_bytes;
    spec->disk_limit_explicit = true;
  }
  if (o.cwd) {
    spec->cwd = *o.cwd;
    spec->cwd_given = true;
  }
  if (o.pass_stdin) spec->pass_stdin = *o.pass_stdin;
  if (o.tmp_bytes) spec->tmp_bytes = *o.tmp_bytes;
  if (o.shm_bytes) spec->shm_bytes = *o.shm_bytes;
  if (o.open_files) spec->open_files = *o.open_files;
  if (o.ttl_seconds) spec->ttl_seconds = *o.ttl_seconds;
  if (o.idle_timeout_seconds) spec->idle_timeout_seconds = *o.idle_timeout_seconds;
  if (o.allow_root_owned_workspace)
    spec->allow_root_owned_workspace = *o.allow_root_owned_workspace;
  if (o.no_pull) spec->no_pull = *o.no_pull;
  if (o.kubeconfig) spec->kube.kubeconfig = *o.kubeconfig;
  if (o.kube_context) spec->kube.context = *o.kube_context;
  if (o.kube_namespace) spec->kube.namespace_name = *o.kube_namespace;
  if (o.egress_connections) spec->limits.egress_connections = *o.egress_connections;
  if (o.egress_bytes) spec->limits.egress_bytes = *o.egress_bytes;
  if (o.session_log) spec->session_log = *o.session_log;
  if (o.max_snapshots) spec->max_snapshots = *o.max_snapshots;
  if (o.clock_start_seconds) spec->clock_start_seconds = *o.clock_start_seconds;
  if (o.random_seed) spec->random_seed = *o.random_seed;
  for (const std::string& pattern : o.allow_hosts) {
    bool have = false;
    for (const std::string& existing : spec->allow_hosts) have = have || existing == pattern;
    if (!have) spec->allow_hosts.push_back(pattern);
  }
  for (const auto& [name, value] : o.env) {
    bool replaced = false;
    for (auto& entry : spec->env) {
      if (entry.first == name) {
        entry.second = value;
        replaced = true;
      }
    }
    if (!replaced) spec->env.emplace_back(name, value);
  }
}

SandboxSpec MergeSpec(const SpecOverlay& policy, const SpecOverlay& flags) {
  SandboxSpec spec;
  ApplyOverlay(policy, &spec);
  ApplyOverlay(flags, &spec);
  return spec;
}

}  // namespace agentbox
