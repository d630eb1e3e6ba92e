// MountTrees: the host paths a MountPlan binds, cloned by the parent as detached mount trees.
//
// Parent side. Cloning here, with the caller's full access to the host, means the child never
// has to reach a host path after it gave up host privileges (a workspace under /root, a 0700
// state dir) — it only attaches ready trees with move_mount. Read-only, nosuid and nodev are
// set on the detached copy, recursively, before anything inside the sandbox can see it.
#pragma once

#include <vector>

#include "base/status.h"
#include "policy/mount_plan.h"
#include "proc/workspace.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct MountTrees {
  std::vector<UniqueFd> trees;  // one per MountPlan op; invalid for ops without a source
  std::vector<char> is_dir;     // what kind of mount point the child must create
};

// `image_root`: the detached overlay of an image (native/image_root.h) for the plan's kRootTree
// op, -1 without one.
StatusOr<MountTrees> PrepareMountTrees(const MountPlan& plan, const Workspace& workspace,
                                       int image_root = -1);

}  // namespace agentbox
