#include "sys/project_quota.h"

#include <linux/dqblk_xfs.h>
#include <linux/fs.h>
#include <linux/quota.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace agentbox {
namespace {

// Quota limits are set in blocks of QIF_DQBLKSIZE (1 KiB); usage comes back in bytes.
constexpr uint64_t kQuotaBlock = QIF_DQBLKSIZE;

long QuotactlFd(int fd, unsigned cmd, uint32_t id, void* addr) {
  return ::syscall(SYS_quotactl_fd, fd, QCMD(cmd, PRJQUOTA), id, addr);
}

}  // namespace

bool ProjectQuotasEnforced(int fd) {
  struct fs_quota_statv state;
  std::memset(&state, 0, sizeof(state));
  state.qs_version = FS_QSTATV_VERSION1;
  if (QuotactlFd(fd, Q_XGETQSTATV, 0, &state) != 0) return false;
  const unsigned needed = FS_QUOTA_PDQ_ACCT | FS_QUOTA_PDQ_ENFD;
  return (state.qs_flags & needed) == needed;
}

StatusOr<ProjectUsage> ReadProjectQuota(int fd_on_fs, uint32_t project) {
  struct if_dqblk q;
  std::memset(&q, 0, sizeof(q));
  if (QuotactlFd(fd_on_fs, Q_GETQUOTA, project, &q) != 0) {
    return ErrnoStatus("read the quota of project " + std::to_string(project));
  }
  return ProjectUsage{q.dqb_curspace, q.dqb_curinodes, q.dqb_bhardlimit * kQuotaBlock,
                      q.dqb_ihardlimit};
}

Status SetProjectLimits(int fd_on_fs, uint32_t project, uint64_t byte_limit, uint64_t inode_limit) {
  struct if_dqblk q;
  std::memset(&q, 0, sizeof(q));
  // Rounded up: a limit between two blocks allows the block it starts.
  q.dqb_bhardlimit = (byte_limit + kQuotaBlock - 1) / kQuotaBlock;
  q.dqb_ihardlimit = inode_limit;
  q.dqb_valid = QIF_LIMITS;
  if (QuotactlFd(fd_on_fs, Q_SETQUOTA, project, &q) != 0) {
    return ErrnoStatus("set the quota of project " + std::to_string(project));
  }
  return OkStatus();
}

StatusOr<ProjectLabel> ReadProjectLabel(int fd) {
  struct fsxattr attr;
  std::memset(&attr, 0, sizeof(attr));
  if (::ioctl(fd, FS_IOC_FSGETXATTR, &attr) != 0) return ErrnoStatus("FS_IOC_FSGETXATTR");
  return ProjectLabel{attr.fsx_projid, (attr.fsx_xflags & FS_XFLAG_PROJINHERIT) != 0};
}

Status SetProjectLabel(int fd, uint32_t project, bool is_directory) {
  struct fsxattr attr;
  std::memset(&attr, 0, sizeof(attr));
  if (::ioctl(fd, FS_IOC_FSGETXATTR, &attr) != 0) return ErrnoStatus("FS_IOC_FSGETXATTR");
  attr.fsx_projid = project;
  if (is_directory) attr.fsx_xflags |= FS_XFLAG_PROJINHERIT;
  if (::ioctl(fd, FS_IOC_FSSETXATTR, &attr) != 0) {
    return ErrnoStatus("set project " + std::to_string(project));
  }
  return OkStatus();
}

}  // namespace agentbox
