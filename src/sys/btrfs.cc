#include "sys/btrfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "sys/file_util.h"

namespace agentbox {
namespace {

constexpr uint64_t kFirstFreeObjectId = 256;  // BTRFS_FIRST_FREE_OBJECTID: a subvolume's root

Status CopyName(const std::string& name, char* out, size_t size) {
  if (name.empty() || name.size() >= size || name.find('/') != std::string::npos) {
    return InvalidArgument("bad subvolume name \"" + name + "\"");
  }
  std::memcpy(out, name.c_str(), name.size() + 1);
  return OkStatus();
}

StatusOr<std::string> FilesystemSysfsDir(int fd) {
  struct btrfs_ioctl_fs_info_args info;
  std::memset(&info, 0, sizeof(info));
  if (::ioctl(fd, BTRFS_IOC_FS_INFO, &info) != 0) return ErrnoStatus("btrfs FS_INFO");
  char uuid[40];
  const unsigned char* u = info.fsid;
  std::snprintf(uuid, sizeof(uuid),
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
                u[15]);
  return std::string("/sys/fs/btrfs/") + uuid;
}

StatusOr<uint64_t> ReadNumber(const std::string& path) {
  AB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str()) return Internal("unreadable number in " + path);
  return static_cast<uint64_t>(v);
}

}  // namespace

bool OnBtrfs(int fd) {
  struct statfs fs;
  return ::fstatfs(fd, &fs) == 0 && static_cast<long>(fs.f_type) == BTRFS_SUPER_MAGIC;
}

StatusOr<uint64_t> BtrfsSubvolumeId(int fd) {
  struct btrfs_ioctl_ino_lookup_args args;
  std::memset(&args, 0, sizeof(args));
  args.objectid = kFirstFreeObjectId;
  if (::ioctl(fd, BTRFS_IOC_INO_LOOKUP, &args) != 0) return ErrnoStatus("btrfs INO_LOOKUP");
  return static_cast<uint64_t>(args.treeid);
}

Status CreateBtrfsSubvolume(int parent_fd, const std::string& name) {
  struct btrfs_ioctl_vol_args_v2 args;
  std::memset(&args, 0, sizeof(args));
  AB_RETURN_IF_ERROR(CopyName(name, args.name, sizeof(args.name)));
  if (::ioctl(parent_fd, BTRFS_IOC_SUBVOL_CREATE_V2, &args) != 0) {
    if (errno == EEXIST) return AlreadyExists("subvolume " + name + " exists");
    return ErrnoStatus("create btrfs subvolume " + name);
  }
  return OkStatus();
}

Status SnapshotBtrfsSubvolume(int parent_fd, int source_fd, const std::string& name,
                              bool read_only) {
  struct btrfs_ioctl_vol_args_v2 args;
  std::memset(&args, 0, sizeof(args));
  AB_RETURN_IF_ERROR(CopyName(name, args.name, sizeof(args.name)));
  args.fd = source_fd;
  if (read_only) args.flags = BTRFS_SUBVOL_RDONLY;
  if (::ioctl(parent_fd, BTRFS_IOC_SNAP_CREATE_V2, &args) != 0) {
    if (errno == EEXIST) return AlreadyExists("subvolume " + name + " exists");
    return ErrnoStatus("snapshot a btrfs subvolume as " + name);
  }
  return OkStatus();
}

Status DestroyBtrfsSubvolume(int parent_fd, const std::string& name) {
  struct btrfs_ioctl_vol_args args;
  std::memset(&args, 0, sizeof(args));
  AB_RETURN_IF_ERROR(CopyName(name, args.name, sizeof(args.name)));
  if (::ioctl(parent_fd, BTRFS_IOC_SNAP_DESTROY, &args) != 0) {
    if (errno == ENOENT) return NotFound("no subvolume " + name);
    return ErrnoStatus("delete btrfs subvolume " + name);
  }
  return OkStatus();
}

Status EnableBtrfsQuota(int fd) {
  struct btrfs_ioctl_quota_ctl_args args;
  std::memset(&args, 0, sizeof(args));
  args.cmd = BTRFS_QUOTA_CTL_ENABLE;
  if (::ioctl(fd, BTRFS_IOC_QUOTA_CTL, &args) != 0) return ErrnoStatus("enable btrfs quotas");
  return OkStatus();
}

Status SetBtrfsReferencedLimit(int subvolume_fd, uint64_t max_bytes) {
  struct btrfs_ioctl_qgroup_limit_args args;
  std::memset(&args, 0, sizeof(args));
  args.qgroupid = 0;  // the subvolume fd lies in
  args.lim.flags = BTRFS_QGROUP_LIMIT_MAX_RFER;
  // The kernel takes (u64)-1 as "no limit" once the flag is set.
  args.lim.max_rfer = max_bytes;
  if (::ioctl(subvolume_fd, BTRFS_IOC_QGROUP_LIMIT, &args) != 0) {
    return ErrnoStatus("set the btrfs qgroup limit");
  }
  return OkStatus();
}

StatusOr<QgroupUsage> ReadBtrfsQgroup(int fd_on_fs, uint64_t subvolume_id) {
  AB_ASSIGN_OR_RETURN(std::string fs_dir, FilesystemSysfsDir(fd_on_fs));
  const std::string dir = fs_dir + "/qgroups/0_" + std::to_string(subvolume_id) + "/";
  QgroupUsage usage;
  AB_ASSIGN_OR_RETURN(usage.referenced_bytes, ReadNumber(dir + "referenced"));
  usage.used_bytes = usage.referenced_bytes;
  for (const char* name : {"rsv_data", "rsv_meta_pertrans", "rsv_meta_prealloc"}) {
    AB_ASSIGN_OR_RETURN(uint64_t v, ReadNumber(dir + name));
    usage.used_bytes += v;
  }
  AB_ASSIGN_OR_RETURN(uint64_t flags, ReadNumber(dir + "limit_flags"));
  AB_ASSIGN_OR_RETURN(uint64_t max, ReadNumber(dir + "max_referenced"));
  usage.limit_bytes =
      (flags & BTRFS_QGROUP_LIMIT_MAX_RFER) ? max : std::numeric_limits<uint64_t>::max();
  return usage;
}

int RemoveStaleBtrfsQgroups(int fd_on_fs, const std::vector<uint64_t>& live_ids) {
  auto fs_dir = FilesystemSysfsDir(fd_on_fs);
  if (!fs_dir.ok()) return 0;
  auto names = ListDir(*fs_dir + "/qgroups");
  if (!names.ok()) return 0;
  int removed = 0;
  for (const std::string& name : *names) {
    uint64_t id = 0;
    if (std::sscanf(name.c_str(), "0_%lu", &id) != 1 || id < kFirstFreeObjectId) continue;
    if (std::find(live_ids.begin(), live_ids.end(), id) != live_ids.end()) continue;
    // One still being dropped answers EBUSY: a later sweep takes it.
    struct btrfs_ioctl_qgroup_create_args args;
    std::memset(&args, 0, sizeof(args));
    args.create = 0;
    args.qgroupid = id;
    if (::ioctl(fd_on_fs, BTRFS_IOC_QGROUP_CREATE, &args) == 0) ++removed;
  }
  return removed;
}

}  // namespace agentbox
