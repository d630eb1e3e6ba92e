// The disk limit of a workspace, counted and held by the kernel (docs/contract.md: --disk-limit,
// "enforced at the write (ENOSPC/EDQUOT)").
//
// Host side, root only. A workspace agentbox makes is a volume of its workspace pool
// (proc/workspace_pool.h), made with its quota. A directory the user gives is held by a project
// quota when its filesystem enforces them (ext4 with the project feature, xfs, mounted prjquota):
// the tree is labelled with one project id (the directory's inode number) once, and the limit
// is set to what it holds plus the disk limit for as long as a sandbox uses it; sandboxes
// sharing the directory share that limit, the last one to end lifts it. Anywhere else nothing
// can hold the limit, and the returned quota says why (not_enforced); the caller decides whether
// that is a refusal (a limit someone asked for) or a reported note (the built-in default).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "spec/workspace_quota.h"

namespace agentbox {

// A directory the user gave. holders_dir (STATE/storage/projects) keeps, per project, one file
// per sandbox (holder) using it. limit_bytes may be kNoDiskLimit (nothing held, nothing said).
StatusOr<WorkspaceQuota> HoldDirectoryQuota(const std::string& dir, uint64_t limit_bytes,
                                            const std::string& holders_dir,
                                            const std::string& holder);

// Ends `holder`'s use of a directory's project quota; the last holder lifts the limit.
void ReleaseDirectoryQuota(const std::string& dir, const WorkspaceQuota& quota,
                           const std::string& holders_dir, const std::string& holder);

// gc: drops the holders `keep` says no to, lifting limits nobody holds any more. Lines of what
// went.
std::vector<std::string> SweepDirectoryQuotas(const std::string& holders_dir,
                                              const std::function<bool(const std::string&)>& keep);

// What the kernel counts of the workspace now, against its limit.
struct QuotaReading {
  uint64_t added_bytes = 0;  // over the baseline
  bool at_limit = false;     // a write there is refused now or was (see AtDiskLimit)
};
StatusOr<QuotaReading> ReadWorkspaceQuota(const std::string& workspace, const WorkspaceQuota& q);

// "disk" in limits_hit: a write refused at the limit leaves the workspace full to within what
// one more allocation would have needed (btrfs refuses within ~64 KiB of it), so a workspace
// with less than 1/256 of its limit (at least 256 KiB, at most half of it) left has hit it. The
// kernel keeps no count of refusals: an allocation refused for being bigger than what is left
// (one fallocate) is not seen here, and a limit of 0 is never reported.
bool AtDiskLimit(uint64_t added_bytes, uint64_t limit_bytes);

}  // namespace agentbox
