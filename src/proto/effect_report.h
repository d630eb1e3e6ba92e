// EffectReport: what one command did, and what the sandbox's walls refused it — the "effects"
// section of every result (run, exec, the HTTP API, MCP's structuredContent).
//
//   workspace   the paths it created, modified and deleted beneath /workspace, with size deltas
//               (a bounded list plus totals), from two walks of the workspace (proc/
//               workspace_manifest.h) compared by proto/workspace_diff.h;
//   walls       each wall it ran into, as one entry an agent can act on: a syscall the seccomp
//               filter denied (by name, with its count, the rule and the program that made it,
//               seen by the filter's user-notification listener), a write the read-only root
//               refused, a process of the host it tried to signal, a connection the network
//               policy stopped, a limit it hit with the limit's value;
//   usage       processes started and bytes written (peak memory and CPU are the result's own
//               top-level fields).
//
// Pure data and its JSON; the messages are made here, so every front end says the same words.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace agentbox {

enum class ChangeKind { kCreated, kModified, kDeleted };
const char* ChangeKindName(ChangeKind kind);

// What a path is: "file", "dir", "symlink" or "other" in JSON.
enum class EntryType : uint8_t { kFile, kDir, kSymlink, kOther };
const char* EntryTypeName(EntryType type);

struct WorkspaceChange {
  std::string path;  // as the command saw it: "/workspace/..."
  ChangeKind change = ChangeKind::kCreated;
  EntryType type = EntryType::kFile;
  int64_t size_delta = 0;  // bytes (st_size): new - old; created: +size; deleted: -size
};

// At most this many changes are listed; the totals count them all.
inline constexpr size_t kMaxListedChanges = 100;

struct WorkspaceChanges {
  // False: the workspace was not looked at (`reason` says why) and nothing below means anything.
  bool observed = false;
  // The walk met its bound (or an unreadable directory): what lies beyond is not counted.
  bool partial = false;
  std::string reason;  // why not observed, or why partial; "" otherwise
  uint64_t created = 0, modified = 0, deleted = 0;
  int64_t size_delta = 0;               // the sum over every change
  std::vector<WorkspaceChange> listed;  // the first kMaxListedChanges, in path order
  uint64_t omitted = 0;                 // changes counted but not listed

  bool empty() const { return created == 0 && modified == 0 && deleted == 0; }
};

// Kinds of wall, as "wall" says them in JSON.
inline constexpr const char* kWallSeccomp = "seccomp";  // a syscall the filter denied
inline constexpr const char* kWallReadOnlyRoot =
    "read_only_root";                                         // a write outside the writable dirs
inline constexpr const char* kWallPermission = "permission";  // uid 1000, no capabilities
inline constexpr const char* kWallPidNamespace = "pid_namespace";  // a process not in the sandbox
inline constexpr const char* kWallNetwork = "network";  // a connection the policy stopped
inline constexpr const char* kWallLimit = "limit";      // a limit hit, with its value

// How a wall was seen.
inline constexpr const char* kSeenByKernel = "seccomp_notification";  // the filter's listener
inline constexpr const char* kSeenInOutput = "stderr";           // the command's own error message
inline constexpr const char* kSeenByProxy = "egress_proxy";      // the allow_hosts proxy
inline constexpr const char* kSeenByDnsCatcher = "dns_catcher";  // names looked up, no network
inline constexpr const char* kSeenBySupervisor = "supervisor";   // cgroup counters, clock, quota

struct Wall {
  std::string wall;     // one of kWall*
  std::string what;     // the syscall rule, the path, the pid, the host, the limit's name
  uint64_t count = 1;   // how many times (seccomp: exact; from output: lines that said so)
  std::string error;    // the errno's name the command got ("EPERM", "EROFS"); "" if none
  std::string rule;     // the policy rule that stopped it ("seccomp: unshare", "allow_hosts",
                        // "timeout 2s", "read-only root")
  std::string process;  // the program that ran into it, when known ("" otherwise)
  std::string seen_by;  // one of kSeen*
  std::string message;  // one line, in words an agent can act on
};

// At most this many walls are listed; the rest are counted in walls_omitted.
inline constexpr size_t kMaxWalls = 32;

struct EffectReport {
  WorkspaceChanges workspace;
  std::vector<Wall> walls;
  uint64_t walls_omitted = 0;
  // Denied syscalls are itemized only where the filter's denials reach a listener (not under
  // gVisor); otherwise `syscalls_reason` says why none are listed.
  bool syscalls_observed = false;
  std::string syscalls_reason;
  std::optional<uint64_t> processes_started;  // processes and threads the command's tree made
  std::optional<uint64_t> bytes_written;      // bytes it dirtied in files on storage

  // Appends `wall`, or counts it in walls_omitted past kMaxWalls.
  void AddWall(Wall wall);
};

// The "effects" JSON object (ordered keys; every string valid UTF-8).
nlohmann::ordered_json EffectsJson(const EffectReport& report);
// The inverse, for a result that crossed the agent protocol; bounded and strict (kInternal).
StatusOr<EffectReport> EffectsFromJson(const nlohmann::json& json);

// One line for stderr without --json ("" when there is nothing to say: no change in the
// workspace and no wall), e.g. "effects: /workspace: 3 created, 1 modified (+12K); walls:
// seccomp unshare x1, read-only root /usr/bin x812; 7 processes, 48K written".
std::string EffectsSummaryLine(const EffectReport& report);

}  // namespace agentbox
