// The operator's settings for `agentbox serve`: `serve --config FILE` (JSON, strictly parsed)
// and the built-in values used without one (docs/api.md "Server config").
//
//   {"backend": "kubernetes", "allowed_backends": ["kubernetes"],
//    "workspace_root": "/srv/agentbox/workspaces",
//    "allow_host_paths": false,
//    "allow_hosts": ["pypi.internal:443", "*.example.com"],
//    "limits": {"memory": {"default": "512M", "max": "4G"}, "timeout": {"max": "1h"}},
//    "max_connections": 16384, "max_connections_per_peer": 1024, "workers": 256,
//    "head_timeout": 10, "body_timeout": 60, "idle_timeout": 60}
//
// `limits` sets, per policy key a tenant may ask for, the value a sandbox gets when the request
// leaves the key out ("default") and the most a request may ask ("max"). Over the max is
// kInvalidArgument naming the key and the ceiling (HTTP 400). The same ceilings bound MCP tool
// arguments and MCP session sandboxes. Unknown keys, repeated keys, wrong types, a default over
// its max and values the policy itself refuses are kInvalidArgument naming the file and key.
//
// Pure: no file or socket is touched here (the caller reads the file).
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "http/server_backends.h"
#include "spec/host_pattern.h"
#include "spec/sandbox_spec.h"
#include "spec/spec_overlay.h"

namespace agentbox {

// One limit of a sandbox a tenant may ask for: a policy key, its default and its ceiling (bytes,
// a count, CPUs or seconds; a ttl of "none" is infinity).
struct TenantLimit {
  std::string_view key;
  FieldKind kind;
  double default_value;
  double max;
};

class TenantLimits {
 public:
  // The built-in defaults (those of docs/policy.md) and ceilings; open_files is bounded by
  // `open_files_hard_limit`, the most this process can give (its hard RLIMIT_NOFILE).
  static TenantLimits BuiltIn(uint64_t open_files_hard_limit);

  // Applies the config's "limits" object (see above); `where` prefixes messages.
  Status Configure(const nlohmann::json& limits, const std::string& where);

  // A create body's policy: every limit key it leaves out gets the default, then every limit
  // is checked against its ceiling (disk_limit 0, which means none, is over any ceiling).
  Status ApplyToPolicy(nlohmann::json* policy) const;

  // An exec's own timeout / output_limit: over the ceiling is kInvalidArgument naming it.
  Status CheckTimeout(double seconds) const;
  Status CheckOutputLimit(uint64_t bytes) const;
  // A sandbox's own exec defaults (a sandbox made by the CLI may have more): at most the ceiling.
  double ClampTimeout(double seconds) const;
  uint64_t ClampOutputLimit(uint64_t bytes) const;
  // The timeout of a detached exec that names none: the ceiling, so that no command a caller
  // starts runs longer than the operator allows (0, none, only when the ceiling is "none").
  double DetachedTimeout() const;

  const TenantLimit& Get(std::string_view key) const;
  std::span<const TenantLimit> all() const { return limits_; }

  // The config's "allow_hosts": the most a tenant's allow_hosts may open. Each pattern a tenant
  // asks for must lie within one of these (spec/host_pattern.h PatternWithin); none by default,
  // so no tenant's sandbox reaches the network unless the operator says where.
  Status ConfigureAllowHosts(const nlohmann::json& patterns, const std::string& where);

 private:
  Status CheckOne(const TenantLimit& limit, double value) const;
  Status CheckAllowHosts(const SandboxSpec& spec) const;
  TenantLimit limits_[14];
  std::vector<HostPattern> allow_hosts_;
};

struct ServerConfig {
  ServerBackends backends;        // the backend of a create that names none; those allowed
  std::string workspace_root;     // "" : a tenant cannot name a workspace
  bool allow_host_paths = false;  // tenants may give absolute host paths (workspace, rootfs)
  TenantLimits limits = TenantLimits::BuiltIn(1 << 20);
  int max_connections = 0;           // 0: what the fd limit allows (at most kMaxConnections)
  int max_connections_per_peer = 0;  // 0: kDefaultConnectionsPerPeer
  int workers = 0;                   // 0: kDefaultWorkers
  double head_timeout_seconds = 10;  // a request head must be in within this, from its start
  double body_timeout_seconds = 60;  // and its body within this, from the head's end
  double idle_timeout_seconds = 60;  // a keep-alive connection with no request is closed
  // An MCP session with no request for this long is ended and its sandbox removed (clients
  // routinely go without DELETE /mcp); also when an initialize over the cap may end one.
  double mcp_session_idle_timeout_seconds = 600;
  // The most characters one MCP `bash` result carries before its middle is cut (as `agentbox
  // mcp --bash-output-chars`); 0: never cut.
  int mcp_bash_output_chars = 30000;
  // The access and audit log (http/access_log.h): a file, "-" for stderr, "" for none.
  std::string access_log;
};

inline constexpr int kMaxConnections = 65536;
inline constexpr int kDefaultConnectionsPerPeer = 1024;
inline constexpr int kDefaultWorkers = 256;

// Parses a config file's text over `config` (which holds the built-in values); `source` (its
// path) starts every message. workspace_root must be absolute (its existence is checked by the
// caller).
Status ParseServerConfig(std::string_view text, std::string_view source, ServerConfig* config);

// A create's policy (a REST body's, an MCP session's) with the operator's choices applied: the
// default backend when it names none and the allowed ones (ServerBackends), then the limits'
// defaults and ceilings (TenantLimits). kInvalidArgument (HTTP 400) naming the key otherwise.
Status ApplyServerDefaults(const ServerConfig& config, nlohmann::json* policy);

}  // namespace agentbox
