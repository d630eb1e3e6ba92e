// Project quotas (ext4 with the `project` feature mounted prjquota, xfs mounted prjquota): the
// quotactl and inode-flag calls behind a kernel-enforced limit on a directory tree.
//
// Host side, root only. Every inode carries a project id; a directory with PROJINHERIT gives
// its id to whatever is created in it, and link/rename into it from another project fail with
// EXDEV, so a tree labelled once stays labelled. The kernel refuses the allocation that would
// take a project past its block or inode hard limit with EDQUOT.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace agentbox {

// True when the filesystem of fd counts and enforces project quotas.
bool ProjectQuotasEnforced(int fd);

struct ProjectUsage {
  uint64_t bytes = 0;
  uint64_t inodes = 0;
  uint64_t byte_limit = 0;   // 0: none
  uint64_t inode_limit = 0;  // 0: none
};
StatusOr<ProjectUsage> ReadProjectQuota(int fd_on_fs, uint32_t project);

// Hard limits of a project (0: none); soft limits are not used.
Status SetProjectLimits(int fd_on_fs, uint32_t project, uint64_t byte_limit, uint64_t inode_limit);

// The project id of the inode fd, and whether it is a directory that passes it on.
struct ProjectLabel {
  uint32_t project = 0;
  bool inherit = false;
};
StatusOr<ProjectLabel> ReadProjectLabel(int fd);
// Sets the project id (and PROJINHERIT on a directory) of the inode fd.
Status SetProjectLabel(int fd, uint32_t project, bool is_directory);

}  // namespace agentbox
