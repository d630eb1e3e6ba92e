// ExecResult: what happened to one command, exactly the JSON result of docs/contract.md §1.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "proto/effect_report.h"
#include "spec/workspace_quota.h"

namespace agentbox {

enum class ExitReason { kExited, kSignaled, kTimeout, kOom, kError };
const char* ExitReasonName(ExitReason reason);

// Limits a command can run into; names are the strings of "limits_hit".
inline constexpr const char* kLimitTimeout = "timeout";
inline constexpr const char* kLimitMemory = "memory";
inline constexpr const char* kLimitPids = "pids";
inline constexpr const char* kLimitOutput = "output";
inline constexpr const char* kLimitDisk = "disk";
inline constexpr const char* kLimitCpu = "cpu";

// How the disk limit of the command's workspace was held.
struct DiskLimitReport {
  uint64_t limit_bytes = kNoDiskLimit;  // bytes the command (run) or the sandbox may add
  QuotaMechanism mechanism = QuotaMechanism::kNone;
  std::string not_enforced;  // why nothing holds a limit that applies; "" otherwise
};
DiskLimitReport DiskLimitReportOf(const WorkspaceQuota& quota);

// What an attempt was: a connection through the egress proxy (allow_hosts), as the proxy saw
// it, or a name looked up in the sandbox, where nothing resolves (proc/dns_catcher.h).
enum class NetworkKind { kConnect, kLookup };
const char* NetworkKindName(NetworkKind kind);  // "connect", "lookup"

// One attempt to reach the network.
struct NetworkConnection {
  std::string host;   // what the client asked for: a name or an IP literal
  uint16_t port = 0;  // 0 for a lookup (its port is not known) and for a refused connection
  bool allowed = false;
  std::string address;          // the address connected to (or refused), "" when none was reached
  uint64_t bytes_sent = 0;      // from the command to the host
  uint64_t bytes_received = 0;  // from the host to the command
  // Why it was denied, or cut short once allowed ("egress_bytes"); "" for neither.
  std::string reason;
  NetworkKind kind = NetworkKind::kConnect;
};

// The `network` section of every result: whether the command had egress at all, and each
// attempt: through the proxy, then the names looked up in the sandbox (at most
// kMaxNetworkConnections in all; the rest only counted).
struct NetworkReport {
  bool egress = false;  // allow_hosts was set: the proxy served this command
  std::vector<NetworkConnection> connections;
  uint64_t connections_dropped = 0;
};
inline constexpr size_t kMaxNetworkConnections = 256;
// The reason of an attempt denied because no pattern names the host.
inline constexpr const char* kNotOnTheList = "not in allow_hosts";
// The reason of every lookup.
inline constexpr const char* kLookupInSandbox =
    "looked up in the sandbox, which resolves nothing (only the egress proxy reaches hosts)";

// Adds each name as a denied attempt of kind lookup, after what the report holds (past
// kMaxNetworkConnections only counted, as `lost` is: names caught but no longer kept).
void AddLookups(NetworkReport& network, const std::vector<std::string>& names, uint64_t lost);
// The names of the report's lookups, in order.
std::vector<std::string> LookupNames(const NetworkReport& network);

// `exec --rollback-on-failure`: whether a failing command's changes to the workspace were
// undone (the workspace put back as it was before the command).
struct RollbackReport {
  bool rolled_back = false;  // the command failed and the workspace was restored
  std::string error;         // the restore failed, why (the workspace may then be part way)
};

struct ExecResult {
  int exit_code = 0;          // the command's code, 124 timeout, 125 error, 128+N signal N
  std::optional<int> signal;  // the signal that ended it, if any
  ExitReason reason = ExitReason::kExited;
  std::string error;  // set when reason == kError
  // Why, as the API's error codes say it ("error_code" in JSON, with "error"): a result may be
  // the only answer once a streamed exec has begun, or for the CLI's exit 125.
  StatusCode error_code = StatusCode::kOk;
  double duration_ms = 0;
  double cpu_ms = 0;
  uint64_t peak_memory_bytes = 0;
  std::string stdout_data;  // kept bytes (raw); rendered as UTF-8 with U+FFFD for bad bytes
  std::string stderr_data;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  std::vector<std::string> limits_hit;        // in the order first seen, no duplicates
  std::optional<DiskLimitReport> disk_limit;  // unset when no workspace was made (an error)
  NetworkReport network;
  EffectReport effects;  // what it did and what the walls refused it (proto/effect_report.h)
  std::optional<RollbackReport> rollback;  // asked for (--rollback-on-failure) only

  void AddLimitHit(const std::string& limit);
  bool HasLimitHit(const std::string& limit) const;
};

// The one stderr line per denied attempt (without --json): "agentbox: network: connect to
// HOST:PORT denied by policy (allow_hosts)", with the reason after a colon when it is not
// simply that the host is not on the list. A lookup has no port: "connect to HOST denied by
// policy (allow_hosts): looked up in the sandbox, not through the proxy (...)", or without
// egress "connect to HOST denied by policy (allow_hosts: none, the sandbox has no network)".
// Empty when nothing was denied.
std::string NetworkDenialLines(const NetworkReport& network);
// NetworkDenialLines when it says anything; else, for a command that had no egress and whose
// attempt nothing observed (a resolv.conf of an image that names another server, an IP literal:
// no route, nothing to catch), the fallback: a heuristic over the last 64 KiB of its stderr. A
// failed name lookup or an unreachable network there (curl's "Could not resolve host: X",
// wget's, git's, npm's EAI_AGAIN, glibc's "Temporary failure in name resolution"...) gets the
// same line for each host it names, or one line saying the sandbox has no network.
std::string NetworkNotes(const ExecResult& result);
nlohmann::ordered_json NetworkJson(const NetworkReport& network);
StatusOr<NetworkReport> NetworkFromJson(const nlohmann::json& json);

// A result for "agentbox could not do it": exit 125, reason "error".
ExecResult ErrorResult(const Status& status);

// docs/contract.md §1's JSON object, one line, keys in the documented order, then "disk_limit":
// {"bytes": N or null (none), "enforced": bool, "mechanism": "btrfs-qgroup" | "project-quota" |
// null, "reason": why not enforced (only then)}, "network", and with --rollback-on-failure
// "rollback": {"rolled_back": bool, "error": why a restore failed (only then)}.
std::string ExecResultToJson(const ExecResult& result);

// The same text in two steps, so a caller can reserve memory for it before it is made: size()
// is the exact length of Render()'s text. The outputs are read where they are (not copied unless
// they need sanitizing), so `result` must outlive this.
class ExecResultJson {
 public:
  explicit ExecResultJson(const ExecResult& result);
  ExecResultJson(const ExecResultJson&) = delete;  // the views may point into the storage
  ExecResultJson& operator=(const ExecResultJson&) = delete;
  size_t size() const { return size_; }
  std::string Render() const;

 private:
  static constexpr std::string_view kStderrKey = ",\"stderr\":";
  std::string head_, tail_;  // the keys before "stdout" (ending `"stdout":`), those after stderr
  std::string stdout_storage_, stderr_storage_;  // sanitized copies, only if needed
  std::string_view stdout_, stderr_;
  size_t size_ = 0;
};

// The "disk_limit" object alone (inspect shows it too).
std::string DiskLimitJson(const DiskLimitReport& report);

// "the disk limit 1G is not enforced: <why>" when a limit applies that nothing holds; "".
std::string UnheldDiskLimitNote(const ExecResult& result);

}  // namespace agentbox
