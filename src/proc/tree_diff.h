// What changed in a workspace since a snapshot of it (`agentbox diff ID SNAP`).
//
// Host side, as root: the two trees are walked side by side (workspace_tree.h). An entry
// unchanged since the snapshot (same inode and times: UnchangedSince) costs a stat; a regular
// file that is not is compared byte for byte when the sizes agree, so a file rewritten with the
// same bytes, or put back by a restore, is not "modified". A directory created or deleted is one
// change (its contents are not listed one by one).
#pragma once

#include <cstddef>

#include "base/status.h"
#include "proto/workspace_changes.h"

namespace agentbox {

// Changes from `old_fd` (the snapshot) to `new_fd` (the workspace now). racy_after_ns as for
// UnchangedSince.
StatusOr<TreeDiff> DiffTrees(int old_fd, int new_fd, int64_t racy_after_ns, size_t max_changes);

}  // namespace agentbox
