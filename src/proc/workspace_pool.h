// The workspace pool: a filesystem of agentbox's own, where every workspace agentbox makes (the
// default of `run`, `create` and the API) is a volume whose size the kernel caps.
//
// Host side, root only. Per state directory:
//   STATE/storage/pool.img   a sparse image: it takes on the host what the volumes hold
//   STATE/storage/pool/      its mount (a loop device, freed by the kernel at unmount)
//   STATE/storage/lock       flock: the pool is made or mounted under it, and torn down only
//                            by `gc`, only when it holds no volume
// btrfs first: a volume is a subvolume with a qgroup limit, made and deleted in ~0.1 ms, and a
// snapshot of it is as cheap (what snapshots and forks of workspaces are). Where the
// kernel or the host lacks btrfs, xfs or ext4 with project quotas: a volume is a directory with
// a project id and block and inode hard limits. The pool is made once (~0.1 s) and stays mounted,
// as a container engine's data root does.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "spec/workspace_quota.h"
#include "sys/unique_fd.h"

namespace agentbox {

enum class PoolKind { kBtrfs, kXfsProject, kExt4Project };
const char* PoolKindName(PoolKind kind);  // "btrfs", "xfs", "ext4"

struct PoolVolume {
  std::string path;  // absolute: STATE/storage/pool/<name>
  WorkspaceQuota quota;
};

class WorkspacePool {
 public:
  // The pool of storage_dir, made (make=true) or mounted on first use. kUnavailable when this
  // host can have none, naming for each filesystem what it lacks (no loop devices, no
  // btrfs-progs, no quota support in the kernel, not root); kNotFound without `make` when there
  // is none yet.
  static StatusOr<WorkspacePool> Open(const std::string& storage_dir, bool make = true);

  // A new volume owned by uid:gid whose growth the kernel holds to limit_bytes (kNoDiskLimit:
  // no limit): empty, or (from, a fork) holding what volume `from` holds, counted as its
  // baseline. btrfs: a writable snapshot of `from`, sharing every block with it; a project-quota
  // pool: a copy (reflinked where the filesystem can). kAlreadyExists when the name is taken.
  StatusOr<PoolVolume> CreateVolume(const std::string& name, uint64_t limit_bytes, uid_t uid,
                                    gid_t gid, const std::string& from = "");
  // A snapshot of volume `source` as volume `name`: btrfs, a read-only snapshot (~ms whatever
  // the size; its qgroup charged to no workspace); a project-quota pool, a copy with a project
  // of its own and no limit.
  Status SnapshotVolume(const std::string& source, const std::string& name);
  // The volume's directory (O_RDONLY|O_DIRECTORY). kNotFound when there is none.
  StatusOr<UniqueFd> OpenVolume(const std::string& name) const;
  // Deletes a volume and all it holds, and its quota. kNotFound when there is none.
  Status DestroyVolume(const std::string& name);
  std::vector<std::string> VolumeNames() const;

  // For `agentbox doctor`, making nothing: the pool there is, or whether one can be made here
  // and of what kind, or what is missing. *ok false when no pool can be had.
  static std::string Describe(const std::string& storage_dir, bool* ok);

  const std::string& root() const { return root_; }
  PoolKind kind() const { return kind_; }

  // gc: deletes the volumes `keep` says no to, the quota entries nothing uses any more, and,
  // when no volume is left, the pool itself (unmounted, image deleted); forgets that a pool
  // could not be made here, so the next sandbox tries again. Lines of what went.
  static std::vector<std::string> Sweep(const std::string& storage_dir,
                                        const std::function<bool(const std::string&)>& keep);

 private:
  WorkspacePool(std::string root, PoolKind kind, UniqueFd root_fd)
      : root_(std::move(root)), kind_(kind), root_fd_(std::move(root_fd)) {}

  std::string root_;
  PoolKind kind_;
  UniqueFd root_fd_;
};

// Files a project-quota volume may hold: one per 4 KiB of its limit (a file that holds any byte
// takes a block of 4 KiB anyway), at least 1,024. btrfs has no inode table: each file's metadata
// (~350 bytes at least) is charged to the same qgroup as its data.
uint64_t InodeCeiling(uint64_t limit_bytes);

}  // namespace agentbox
