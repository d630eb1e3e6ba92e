#include "proc/disk_quota.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "proc/workspace_pool.h"
#include "proc/workspace_scan.h"
#include "sys/btrfs.h"
#include "sys/file_util.h"
#include "sys/project_quota.h"

namespace agentbox {
namespace {

constexpr uint64_t kMarginFloor = 256 * 1024;

UniqueFd OpenDir(const std::string& dir) {
  return UniqueFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

std::string FilesystemName(int fd) {
  struct statfs fs;
  if (::fstatfs(fd, &fs) != 0) return "its filesystem";
  switch (static_cast<long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:
      return "ext4";
    case 0x58465342:
      return "xfs";
    case BTRFS_SUPER_MAGIC:
      return "btrfs";
    case TMPFS_MAGIC:
      return "tmpfs";
    case OVERLAYFS_SUPER_MAGIC:
      return "overlayfs";
    case NFS_SUPER_MAGIC:
      return "nfs";
    default:
      return "its filesystem";
  }
}

// Serialises the holders of every project: one lock for the directory of holders.
class HoldersLock {
 public:
  explicit HoldersLock(const std::string& holders_dir) {
    if (!MakeDirs(holders_dir, 0700).ok()) return;
    fd_ = UniqueFd(::open((holders_dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    while (fd_.valid() && ::flock(fd_.get(), LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  bool ok() const { return fd_.valid(); }

 private:
  UniqueFd fd_;
};

std::string ProjectDir(const std::string& holders_dir, dev_t dev, uint32_t project) {
  return holders_dir + "/" + std::to_string(static_cast<uint64_t>(dev)) + "-" +
         std::to_string(project);
}

bool DirEmpty(const std::string& dir) {
  auto names = ListDir(dir);
  return !names.ok() || names->empty();
}

void LiftLimits(const std::string& workspace, uint32_t project) {
  UniqueFd fd = OpenDir(workspace);
  if (fd.valid()) (void)SetProjectLimits(fd.get(), project, 0, 0);
}

}  // namespace

bool AtDiskLimit(uint64_t added_bytes, uint64_t limit_bytes) {
  if (limit_bytes == 0 || limit_bytes == kNoDiskLimit) return false;
  const uint64_t margin = std::max(std::min(kMarginFloor, limit_bytes / 2), limit_bytes / 256);
  return added_bytes + margin >= limit_bytes;
}

StatusOr<WorkspaceQuota> HoldDirectoryQuota(const std::string& dir, uint64_t limit_bytes,
                                            const std::string& holders_dir,
                                            const std::string& holder) {
  WorkspaceQuota quota;
  quota.limit_bytes = limit_bytes;
  if (limit_bytes == kNoDiskLimit) return quota;
  UniqueFd fd = OpenDir(dir);
  if (!fd.valid()) return ErrnoStatus("open the workspace " + dir);
  if (!ProjectQuotasEnforced(fd.get())) {
    quota.not_enforced = FilesystemName(fd.get()) + " holding " + dir + " has no project quotas";
    return quota;
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("stat " + dir);
  if (st.st_ino == 0 || st.st_ino > UINT32_MAX) {
    quota.not_enforced = "the inode number of " + dir + " does not fit a project id";
    return quota;
  }
  const auto project = static_cast<uint32_t>(st.st_ino);
  AB_ASSIGN_OR_RETURN(ProjectLabel label, ReadProjectLabel(fd.get()));
  if (label.project != 0 && label.project != project) {
    quota.not_enforced = dir + " already belongs to project " + std::to_string(label.project) +
                         ", which agentbox did not set";
    return quota;
  }
  HoldersLock lock(holders_dir);
  if (!lock.ok()) return ErrnoStatus("lock " + holders_dir);
  const std::string pdir = ProjectDir(holders_dir, st.st_dev, project);
  AB_RETURN_IF_ERROR(MakeDir(pdir, 0700));
  const bool first = DirEmpty(pdir);
  if (first && (label.project != project || !label.inherit)) {
    // Labelled once: from then on everything made in the tree inherits the id, and a link or a
    // rename into it from elsewhere fails with EXDEV (mv copies instead).
    AB_RETURN_IF_ERROR(ScanWorkspace(dir, project).status());
  }
  AB_ASSIGN_OR_RETURN(ProjectUsage usage, ReadProjectQuota(fd.get(), project));
  if (first) {
    AB_RETURN_IF_ERROR(SetProjectLimits(fd.get(), project, usage.bytes + limit_bytes,
                                        usage.inodes + InodeCeiling(limit_bytes)));
  }
  AB_RETURN_IF_ERROR(WriteFile(pdir + "/" + holder, dir, 0600));
  quota.mechanism = QuotaMechanism::kProjectQuota;
  quota.id = project;
  quota.baseline_bytes = usage.bytes;
  quota.inode_limit = InodeCeiling(limit_bytes);
  return quota;
}

void ReleaseDirectoryQuota(const std::string& dir, const WorkspaceQuota& quota,
                           const std::string& holders_dir, const std::string& holder) {
  if (quota.mechanism != QuotaMechanism::kProjectQuota || !quota.pool_volume.empty()) return;
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return;
  HoldersLock lock(holders_dir);
  const std::string pdir = ProjectDir(holders_dir, st.st_dev, static_cast<uint32_t>(quota.id));
  ::unlink((pdir + "/" + holder).c_str());
  if (DirEmpty(pdir)) {
    LiftLimits(dir, static_cast<uint32_t>(quota.id));
    ::rmdir(pdir.c_str());
  }
}

std::vector<std::string> SweepDirectoryQuotas(const std::string& holders_dir,
                                              const std::function<bool(const std::string&)>& keep) {
  std::vector<std::string> removed;
  if (!PathExists(holders_dir)) return removed;
  HoldersLock lock(holders_dir);
  auto projects = ListDir(holders_dir);
  for (const std::string& p : projects.ok() ? *projects : std::vector<std::string>{}) {
    const std::string pdir = holders_dir + "/" + p;
    size_t dash = p.find('-');
    if (dash == std::string::npos) continue;
    const auto project = static_cast<uint32_t>(std::strtoul(p.c_str() + dash + 1, nullptr, 10));
    std::string workspace;
    auto holders = ListDir(pdir);
    for (const std::string& h : holders.ok() ? *holders : std::vector<std::string>{}) {
      if (keep(h)) continue;
      auto text = ReadFile(pdir + "/" + h);
      if (text.ok()) workspace = *text;
      if (::unlink((pdir + "/" + h).c_str()) == 0) {
        removed.push_back("disk quota hold " + h + " on " + workspace);
      }
    }
    if (DirEmpty(pdir)) {
      if (!workspace.empty()) LiftLimits(workspace, project);
      ::rmdir(pdir.c_str());
    }
  }
  return removed;
}

StatusOr<QuotaReading> ReadWorkspaceQuota(const std::string& workspace, const WorkspaceQuota& q) {
  QuotaReading reading;
  if (!q.enforced()) return reading;
  UniqueFd fd = OpenDir(workspace);
  if (!fd.valid()) return ErrnoStatus("open the workspace " + workspace);
  uint64_t used = 0;
  if (q.mechanism == QuotaMechanism::kBtrfsQgroup) {
    AB_ASSIGN_OR_RETURN(QgroupUsage usage, ReadBtrfsQgroup(fd.get(), q.id));
    used = usage.used_bytes;
  } else {
    AB_ASSIGN_OR_RETURN(ProjectUsage usage,
                        ReadProjectQuota(fd.get(), static_cast<uint32_t>(q.id)));
    used = usage.bytes;
    // Out of files is a refused write too (EDQUOT at creat).
    if (usage.inode_limit != 0 && usage.inodes >= usage.inode_limit) reading.at_limit = true;
  }
  reading.added_bytes = used > q.baseline_bytes ? used - q.baseline_bytes : 0;
  reading.at_limit = reading.at_limit || AtDiskLimit(reading.added_bytes, q.limit_bytes);
  return reading;
}

}  // namespace agentbox
