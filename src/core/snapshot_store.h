// Snapshots of a sandbox's workspace: what agentbox remembers of each, beside its sandbox.
//
//   <sandbox state dir>/snapshots/<snap id>.json   one SnapshotRecord (written atomically)
//   <sandbox state dir>/snapshots/lock             flock: names are checked and taken under it
//
// A snapshot belongs to its sandbox: it is listed, restored and diffed through it, and removed
// with it (`rm`, gc). Its bytes are a volume of the workspace pool (core/workspace_storage.h);
// a fork made from it is a sandbox of its own and outlives it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "core/sandbox_record.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct SnapshotRecord {
  std::string id;                // 12 hex digits, unique in the state dir
  std::string name;              // unique among its sandbox's snapshots; "" for none
  std::string sandbox_id;        // the sandbox whose workspace it is
  std::string created_at;        // RFC 3339, UTC
  int64_t taken_ns = 0;          // CLOCK_REALTIME just before it was taken (restore's racy bound)
  std::string volume;            // its volume in the workspace pool: "snap-<sandbox>-<id>"
  std::string workspace_digest;  // the workspace digest it holds ("" when not computed)
};

std::string SnapshotRecordToJson(const SnapshotRecord& record);
StatusOr<SnapshotRecord> SnapshotRecordFromJson(const std::string& json);
// What the CLI (--json), the API and MCP show of a snapshot: {"id", "name", "sandbox",
// "created_at", "workspace_digest" (null when not computed)}.
nlohmann::json SnapshotViewJson(const SnapshotRecord& record);

// The pool volumes of `sandbox_id`'s snapshots all begin with this.
std::string SnapshotVolumePrefix(const std::string& sandbox_id);

// The snapshot's workspace digest cache (forks of it start from it).
std::string SnapshotCachePath(const SandboxRecord& sandbox, const std::string& snapshot_id);

// A new record for a snapshot of `sandbox` named `name` ("" for none): a fresh id, its volume,
// the time. Nothing is written.
SnapshotRecord NewSnapshotRecord(const SandboxRecord& sandbox, const std::string& name);

// Holds the sandbox's snapshot lock (exclusive) while it lives.
class SnapshotLock {
 public:
  static StatusOr<SnapshotLock> Take(const SandboxRecord& sandbox);

 private:
  explicit SnapshotLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;  // closing it releases the lock
};

// Under the lock. Save: kAlreadyExists when another snapshot of the sandbox has the name.
Status SaveSnapshot(const SandboxRecord& sandbox, const SnapshotRecord& snapshot);
Status RemoveSnapshotRecord(const SandboxRecord& sandbox, const std::string& id);

// The sandbox's snapshots, oldest first.
std::vector<SnapshotRecord> ListSnapshots(const SandboxRecord& sandbox);
// By exact id, by name, or by a unique id prefix of at least 4 digits. kNotFound naming ref.
StatusOr<SnapshotRecord> FindSnapshot(const SandboxRecord& sandbox, const std::string& ref);
// By id or unique id prefix over the snapshots of all `sandboxes`; with the index of the one
// it belongs to.
StatusOr<std::pair<size_t, SnapshotRecord>> FindSnapshotIn(
    const std::vector<SandboxRecord>& sandboxes, const std::string& ref);

// Whether `sandbox` may take one more snapshot named `name` ("" for none) beside `held`, the
// snapshots it has (under the lock): kResourceExhausted at its policy's max_snapshots,
// kAlreadyExists when one of them has the name.
Status CheckNewSnapshot(const SandboxRecord& sandbox, const std::vector<SnapshotRecord>& held,
                        const std::string& name);

// Names: the rules of sandbox names.
Status ValidateSnapshotName(const std::string& name);

}  // namespace agentbox
