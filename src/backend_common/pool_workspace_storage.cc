#include "backend_common/pool_workspace_storage.h"

#include <fcntl.h>

#include "proc/tree_diff.h"
#include "proc/tree_sync.h"
#include "proc/workspace.h"
#include "proc/workspace_digest.h"
#include "proc/workspace_pool.h"
#include "proc/workspace_tree.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

// A sandbox whose workspace is not on this host (kubernetes: the pod's emptyDir) has none here
// to snapshot, restore, diff or digest; an empty path must never be read as the current dir.
Status CheckOnThisHost(const SandboxRecord& record) {
  if (!record.workspace.empty()) return OkStatus();
  return Unavailable("sandbox " + record.id + "'s workspace is in its " +
                     BackendName(record.backend) +
                     " box, not on this host: snapshots and digests of it are not available");
}

StatusOr<UniqueFd> OpenWorkspace(const SandboxRecord& record) {
  AB_RETURN_IF_ERROR(CheckOnThisHost(record));
  UniqueFd fd(::open(record.workspace.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("open the workspace " + record.workspace);
  return fd;
}

class PoolWorkspaceStorage : public WorkspaceStorage {
 public:
  explicit PoolWorkspaceStorage(std::string state_root) : state_root_(std::move(state_root)) {}

  Status CheckSnapshottable(const SandboxRecord& record) override {
    AB_RETURN_IF_ERROR(CheckOnThisHost(record));
    if (!record.workspace_temporary) {
      return Unavailable("sandbox " + record.id + "'s workspace is a directory you gave (" +
                         record.workspace +
                         "): agentbox snapshots only the workspaces it makes (create the "
                         "sandbox without --workspace, and cp files in)");
    }
    if (record.disk_quota.pool_volume.empty()) {
      return Unavailable("sandbox " + record.id +
                         "'s workspace is not on agentbox's workspace pool (this host could "
                         "give none: see agentbox doctor), and only the pool's can be "
                         "snapshotted");
    }
    return OkStatus();
  }

  Status Snapshot(const SandboxRecord& record, const std::string& volume) override {
    AB_ASSIGN_OR_RETURN(WorkspacePool pool, Pool());
    return pool.SnapshotVolume(record.disk_quota.pool_volume, volume);
  }

  StatusOr<SyncStats> Restore(const SandboxRecord& record, const std::string& volume,
                              int64_t taken_ns) override {
    AB_ASSIGN_OR_RETURN(WorkspacePool pool, Pool());
    AB_ASSIGN_OR_RETURN(UniqueFd snap, pool.OpenVolume(volume));
    AB_ASSIGN_OR_RETURN(UniqueFd ws, OpenWorkspace(record));
    auto stats = SyncTree(snap.get(), ws.get(), taken_ns - kRacyMarginNs);
    if (!stats.ok()) return stats.status().WithContext("restore the workspace");
    return stats;
  }

  StatusOr<TreeDiff> Diff(const SandboxRecord& record, const std::string& volume, int64_t taken_ns,
                          size_t max_changes) override {
    AB_ASSIGN_OR_RETURN(WorkspacePool pool, Pool());
    AB_ASSIGN_OR_RETURN(UniqueFd snap, pool.OpenVolume(volume));
    AB_ASSIGN_OR_RETURN(UniqueFd ws, OpenWorkspace(record));
    return DiffTrees(snap.get(), ws.get(), taken_ns - kRacyMarginNs, max_changes);
  }

  Status RemoveSnapshot(const std::string& volume) override {
    auto pool = Pool();
    if (!pool.ok())
      return pool.status().code() == StatusCode::kNotFound ? OkStatus() : pool.status();
    Status st = pool->DestroyVolume(volume);
    return st.code() == StatusCode::kNotFound ? OkStatus() : st;
  }

  StatusOr<std::string> Digest(const SandboxRecord& record) override {
    AB_RETURN_IF_ERROR(CheckOnThisHost(record));
    const std::string own = OwnCache(record);
    return DigestWorkspace(record.workspace, ReadCache(record), own);
  }

  StatusOr<std::string> SnapshotDigest(const SandboxRecord& record, const std::string& volume,
                                       const std::string& cache_path) override {
    AB_ASSIGN_OR_RETURN(WorkspacePool pool, Pool());
    return DigestWorkspace(pool.root() + "/" + volume, ReadCache(record), cache_path);
  }

 private:
  StatusOr<WorkspacePool> Pool() {
    return WorkspacePool::Open(WorkspaceStorageDir(state_root_), /*make=*/false);
  }
  static std::string OwnCache(const SandboxRecord& record) {
    return record.state_dir + "/digest.cache";
  }
  // The sandbox's own cache, or until it has one, its seed (a fork's snapshot's).
  static std::string ReadCache(const SandboxRecord& record) {
    const std::string own = OwnCache(record);
    return PathExists(own) || record.digest_seed.empty() ? own : record.digest_seed;
  }

  std::string state_root_;
};

}  // namespace

std::shared_ptr<WorkspaceStorage> MakePoolWorkspaceStorage(const std::string& state_root) {
  return std::make_shared<PoolWorkspaceStorage>(state_root);
}

}  // namespace agentbox
