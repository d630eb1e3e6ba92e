// Makes one directory tree exactly what another is, in place: the restore of a workspace from
// its snapshot, and the copy a snapshot is where the pool has no btrfs.
//
// Host side, as root, while nothing of the sandbox runs (the caller makes sure: a restore
// needs the workspace to itself). Entries the source lacks are removed first (so the space
// they free is there for what comes back), entries unchanged since the snapshot are kept as
// they are (tree walk only: workspace_tree.h UnchangedSince), the rest is copied from the
// source: regular files by reflink (FICLONE: no data copied; a byte copy where the filesystem
// cannot), directories, symlinks and FIFOs made anew; then owner, mode, extended attributes
// and times, so the result is the source's tree entry for entry. Hard links of the source
// stay hard links. Sockets and device nodes (which a sandbox cannot make) are not copied.
// Never follows a symlink, never crosses a mount.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "proto/workspace_changes.h"

namespace agentbox {

// Makes the tree at dst_fd (a directory) hold exactly what src_fd's holds, its own mode and
// times included. racy_after_ns: see UnchangedSince (INT64_MIN: keep nothing, copy all).
// On failure the tree is part way: the caller reports it, and a second call finishes it.
StatusOr<SyncStats> SyncTree(int src_fd, int dst_fd, int64_t racy_after_ns);

}  // namespace agentbox
