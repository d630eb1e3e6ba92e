// btrfs subvolumes and qgroups: the ioctls behind agentbox's own workspace filesystem.
//
// Host side, root only (qgroup limits need CAP_SYS_ADMIN). A workspace is a subvolume whose
// level-0 qgroup (0/<subvolume id>) carries a limit on referenced bytes: the kernel refuses the
// write, fallocate or file creation that would cross it with EDQUOT, whoever makes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace agentbox {

// True when fd is on a btrfs filesystem.
bool OnBtrfs(int fd);

// The id of the subvolume fd lies in (its qgroup is 0/<id>).
StatusOr<uint64_t> BtrfsSubvolumeId(int fd);

// Creates subvolume `name` in the directory parent_fd; fails with kAlreadyExists if it exists.
Status CreateBtrfsSubvolume(int parent_fd, const std::string& name);

// Makes subvolume `name` in parent_fd a snapshot of the subvolume source_fd is the root of: it
// shares every block with it (nothing is copied; ~ms whatever its size) and has a qgroup of its
// own, 0/<its id>, charged what it references. read_only: nothing, root included, can change it.
// kAlreadyExists if `name` exists.
Status SnapshotBtrfsSubvolume(int parent_fd, int source_fd, const std::string& name,
                              bool read_only);

// Deletes subvolume `name` of parent_fd with everything in it (the kernel's cleaner frees its
// extents later; its qgroup goes once the subvolume is dropped). kNotFound when absent.
Status DestroyBtrfsSubvolume(int parent_fd, const std::string& name);

// Turns qgroup accounting on for the filesystem of fd (idempotent).
Status EnableBtrfsQuota(int fd);

// Sets the limit on referenced bytes of the subvolume fd lies in (UINT64_MAX: none).
Status SetBtrfsReferencedLimit(int subvolume_fd, uint64_t max_bytes);

// What the kernel counts against a qgroup's limit: bytes referenced after the last commit plus
// what writes since then have reserved. Read from /sys/fs/btrfs/<fsid>/qgroups/0_<id>.
struct QgroupUsage {
  uint64_t referenced_bytes = 0;  // as of the last commit
  uint64_t used_bytes = 0;        // referenced + reserved: what the limit is checked against
  uint64_t limit_bytes = 0;       // max_referenced; UINT64_MAX when none is set
};
StatusOr<QgroupUsage> ReadBtrfsQgroup(int fd_on_fs, uint64_t subvolume_id);

// Removes the level-0 qgroups whose subvolume is not in live_ids (kernels before 6.7 keep a
// deleted subvolume's qgroup as "stale"; some of them would also remove a live one's, so the
// caller names every subvolume that exists). Returns how many went; best effort.
int RemoveStaleBtrfsQgroups(int fd_on_fs, const std::vector<uint64_t>& live_ids);

}  // namespace agentbox
