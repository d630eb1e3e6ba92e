// WorkspacePool's volumes: making (empty, or from another volume), snapshotting, opening,
// deleting and listing them (workspace_pool.h). The pool itself is workspace_pool.cc's.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <optional>

#include "proc/tree_sync.h"
#include "proc/workspace_pool.h"
#include "sys/btrfs.h"
#include "sys/file_util.h"
#include "sys/project_quota.h"

namespace agentbox {
namespace {

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > kNoDiskLimit - b ? kNoDiskLimit : a + b;
}

// The qgroup limit of a new btrfs volume: what it references now (an empty subvolume's root
// node, or all a fork starts with) is its baseline, and it may add limit_bytes to that.
Status LimitBtrfsVolume(int fd, uint64_t limit_bytes, WorkspaceQuota& quota) {
  AB_ASSIGN_OR_RETURN(uint64_t id, BtrfsSubvolumeId(fd));
  // What a new subvolume holds is counted once committed (a snapshot commits); reservations of
  // the moment (the chown's) come and go and are no baseline.
  AB_ASSIGN_OR_RETURN(QgroupUsage usage, ReadBtrfsQgroup(fd, id));
  quota.mechanism = QuotaMechanism::kBtrfsQgroup;
  quota.id = id;
  quota.baseline_bytes = usage.referenced_bytes;
  // A limit of 0 bytes is "none" to btrfs: 1 byte refuses every block instead.
  return SetBtrfsReferencedLimit(
      fd, std::max<uint64_t>(SaturatingAdd(usage.referenced_bytes, limit_bytes), 1));
}

// The same with project quotas: a block and an inode hard limit over what it holds now.
Status LimitProjectVolume(int fd, uint32_t project, uint64_t limit_bytes, WorkspaceQuota& quota) {
  AB_ASSIGN_OR_RETURN(ProjectUsage usage, ReadProjectQuota(fd, project));
  quota.mechanism = QuotaMechanism::kProjectQuota;
  quota.id = project;
  quota.baseline_bytes = usage.bytes;
  quota.inode_limit = InodeCeiling(limit_bytes);
  if (limit_bytes == kNoDiskLimit) return OkStatus();
  return SetProjectLimits(fd, project, SaturatingAdd(usage.bytes, limit_bytes),
                          usage.inodes + quota.inode_limit);
}

Status CheckVolumeName(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name[0] == '.') {
    return InvalidArgument("bad volume name \"" + name + "\"");
  }
  return OkStatus();
}

// The project of a new volume directory: its inode number, unique on the pool while it lives.
StatusOr<uint32_t> LabelProjectVolume(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus("stat " + path);
  if (st.st_ino == 0 || st.st_ino > UINT32_MAX) {
    return Internal("inode number of " + path + " does not fit a project id");
  }
  const auto project = static_cast<uint32_t>(st.st_ino);
  AB_RETURN_IF_ERROR(SetProjectLabel(fd, project, /*is_directory=*/true));
  return project;
}

// A project-quota volume's directory, labelled, filled with a copy of `from` when given.
StatusOr<uint32_t> MakeProjectVolume(int root_fd, const std::string& root, const std::string& name,
                                     const std::string& from) {
  if (::mkdirat(root_fd, name.c_str(), 0755) != 0) {
    if (errno == EEXIST) return AlreadyExists("volume " + name + " exists");
    return ErrnoStatus("create " + root + "/" + name);
  }
  UniqueFd fd(::openat(root_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("open " + root + "/" + name);
  AB_ASSIGN_OR_RETURN(uint32_t project, LabelProjectVolume(fd.get(), root + "/" + name));
  if (!from.empty()) {
    UniqueFd src(::openat(root_fd, from.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!src.valid()) return ErrnoStatus("open " + root + "/" + from);
    // Everything copied, nothing kept: the new directory starts empty.
    AB_RETURN_IF_ERROR(SyncTree(src.get(), fd.get(), INT64_MIN).status());
  }
  return project;
}

// The subvolume `name`: new and empty, or a writable snapshot of `from`.
Status MakeBtrfsVolume(int root_fd, const std::string& root, const std::string& name,
                       const std::string& from) {
  if (from.empty()) return CreateBtrfsSubvolume(root_fd, name);
  UniqueFd src(::openat(root_fd, from.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!src.valid()) return ErrnoStatus("open " + root + "/" + from);
  return SnapshotBtrfsSubvolume(root_fd, src.get(), name, /*read_only=*/false);
}

}  // namespace

StatusOr<UniqueFd> WorkspacePool::OpenVolume(const std::string& name) const {
  AB_RETURN_IF_ERROR(CheckVolumeName(name));
  UniqueFd fd(
      ::openat(root_fd_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return NotFound("no volume " + name + " in " + root_);
    return ErrnoStatus("open " + root_ + "/" + name);
  }
  return fd;
}

StatusOr<PoolVolume> WorkspacePool::CreateVolume(const std::string& name, uint64_t limit_bytes,
                                                 uid_t uid, gid_t gid, const std::string& from) {
  AB_RETURN_IF_ERROR(CheckVolumeName(name));
  if (!from.empty()) AB_RETURN_IF_ERROR(CheckVolumeName(from));
  PoolVolume vol;
  vol.path = root_ + "/" + name;
  vol.quota.limit_bytes = limit_bytes;
  vol.quota.pool_volume = name;
  std::optional<uint32_t> project;
  if (kind_ == PoolKind::kBtrfs) {
    AB_RETURN_IF_ERROR(MakeBtrfsVolume(root_fd_.get(), root_, name, from));
  } else {
    auto made = MakeProjectVolume(root_fd_.get(), root_, name, from);
    if (!made.ok()) {
      if (made.status().code() != StatusCode::kAlreadyExists) (void)DestroyVolume(name);
      return made.status();
    }
    project = *made;
  }
  auto fail = [&](Status st) {
    (void)DestroyVolume(name);
    return st;
  };
  auto fd = OpenVolume(name);
  if (!fd.ok()) return fail(fd.status());
  // Before the limit: under a limit of 0 not even the owner could change any more.
  if (::fchown(fd->get(), uid, gid) != 0) return fail(ErrnoStatus("chown " + vol.path));
  Status limited = project ? LimitProjectVolume(fd->get(), *project, limit_bytes, vol.quota)
                           : LimitBtrfsVolume(fd->get(), limit_bytes, vol.quota);
  if (!limited.ok()) return fail(limited);
  return vol;
}

Status WorkspacePool::SnapshotVolume(const std::string& source, const std::string& name) {
  AB_RETURN_IF_ERROR(CheckVolumeName(name));
  AB_ASSIGN_OR_RETURN(UniqueFd src, OpenVolume(source));
  if (kind_ == PoolKind::kBtrfs) {
    return SnapshotBtrfsSubvolume(root_fd_.get(), src.get(), name, /*read_only=*/true);
  }
  auto made = MakeProjectVolume(root_fd_.get(), root_, name, source);
  if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
    (void)DestroyVolume(name);
  }
  return made.status();
}

Status WorkspacePool::DestroyVolume(const std::string& name) {
  AB_RETURN_IF_ERROR(CheckVolumeName(name));
  if (kind_ == PoolKind::kBtrfs) return DestroyBtrfsSubvolume(root_fd_.get(), name);
  const std::string path = root_ + "/" + name;
  UniqueFd fd(
      ::openat(root_fd_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return NotFound("no volume " + name);
    return ErrnoStatus("open " + path);
  }
  auto label = ReadProjectLabel(fd.get());
  fd.reset();
  if (!RemoveTree(path)) return Internal("could not remove " + path);
  // Its files are gone, so the project counts nothing; the limits go with it.
  if (label.ok() && label->project != 0) {
    (void)SetProjectLimits(root_fd_.get(), label->project, 0, 0);
  }
  return OkStatus();
}

std::vector<std::string> WorkspacePool::VolumeNames() const {
  auto names = ListDir(root_);
  std::vector<std::string> out;
  for (const std::string& n : names.ok() ? *names : std::vector<std::string>{}) {
    if (n != "lost+found") out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace agentbox
