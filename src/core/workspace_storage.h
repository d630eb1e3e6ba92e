// WorkspaceStorage: what agentbox does with a sandbox's workspace beyond mounting it: snapshots
// (and the restore and diff they allow) and its digest (the session log's).
//
// The same for every backend: native and docker both take a private workspace from the one
// workspace pool of the state dir (proc/workspace_pool.h), so one implementation
// (backend_common/pool_workspace_storage.h) is handed to SandboxManager by app, as the
// backends are; core names none. A fork's workspace is made by the backend's Create, from
// SandboxRecord::workspace_source.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "core/sandbox_record.h"
#include "proto/workspace_changes.h"

namespace agentbox {

class WorkspaceStorage {
 public:
  virtual ~WorkspaceStorage() = default;

  // Fails with kUnavailable, one line saying why, when the sandbox's workspace cannot be
  // snapshotted: a directory the user gave (agentbox never snapshots a user's own files), or
  // one made where the host could give no workspace pool.
  virtual Status CheckSnapshottable(const SandboxRecord& record) = 0;
  // A snapshot of the workspace as pool volume `volume`: on btrfs, read-only and ~ms whatever
  // its size, sharing every block; elsewhere a copy.
  virtual Status Snapshot(const SandboxRecord& record, const std::string& volume) = 0;
  // Makes the workspace exactly what the snapshot holds, in place (the sandbox's mounts stay as
  // they are): only entries changed since the snapshot are touched. taken_ns: when the
  // snapshot was taken (proc/workspace_tree.h UnchangedSince). Nothing of the sandbox may run
  // meanwhile; the caller makes sure.
  virtual StatusOr<SyncStats> Restore(const SandboxRecord& record, const std::string& volume,
                                      int64_t taken_ns) = 0;
  // What changed in the workspace since the snapshot (at most max_changes listed).
  virtual StatusOr<TreeDiff> Diff(const SandboxRecord& record, const std::string& volume,
                                  int64_t taken_ns, size_t max_changes) = 0;
  // Deletes a snapshot's volume; fine when it is gone already.
  virtual Status RemoveSnapshot(const std::string& volume) = 0;
  // The workspace digest (proc/workspace_digest.h) of the sandbox's workspace: its cache is
  // <state dir>/digest.cache (else record.digest_seed, a fork's first time).
  virtual StatusOr<std::string> Digest(const SandboxRecord& record) = 0;
  // The digest of a snapshot just taken of the sandbox's workspace: the workspace's cache
  // serves (a btrfs snapshot keeps every inode and time), and the snapshot's own is written to
  // cache_path (its forks start from it).
  virtual StatusOr<std::string> SnapshotDigest(const SandboxRecord& record,
                                               const std::string& volume,
                                               const std::string& cache_path) = 0;
};

}  // namespace agentbox
