// Child side: builds the sandbox's filesystem from the MountPlan (see policy/mount_plan.h).
//
// Runs in the cloned child, inside its new user + mount namespaces, as root of the user
// namespace. No allocation: every string was prepared by the parent.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "proc/child_plan.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

bool Fail(ChildPlan& plan, ChildStep step, const std::string& detail) {
  ReportChildError(plan, step, errno, detail.c_str());
  return false;
}

// Creates an empty mount point of the right type; an existing one is fine.
bool MakeMountPoint(const char* path, bool directory) {
  if (directory) return ::mkdir(path, 0755) == 0 || errno == EEXIST;
  int fd = ::open(path, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0) return errno == EEXIST;
  ::close(fd);
  return true;
}

// Attaches a tree the parent cloned (mount_trees.cc) at target.
bool AttachTree(int tree, const char* target, bool directory) {
  return MakeMountPoint(target, directory) &&
         sys::MoveMount(tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) == 0;
}

bool SetReadOnly(const char* target, bool recursive) {
  struct mount_attr attr = {};
  attr.attr_set = MOUNT_ATTR_RDONLY;
  return sys::MountSetattr(AT_FDCWD, target, recursive ? AT_RECURSIVE : 0, &attr) == 0;
}

bool WriteFile(const char* path, const std::string& data) {
  int fd = ::open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0) return false;
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return ::close(fd) == 0;
}

bool Absent(const char* path) { return ::access(path, F_OK) != 0 && errno == ENOENT; }

bool ExecuteOp(ChildPlan& plan, size_t i) {
  const MountOp& op = plan.mounts->ops[i];
  const char* target = plan.full_targets[i].c_str();
  switch (op.kind) {
    case MountKind::kBindReadOnly:
    case MountKind::kDevice:
    case MountKind::kWorkspace:
      return AttachTree(plan.source_trees[i], target, plan.source_is_dir[i] != 0);
    case MountKind::kTmpfs:
      return MakeMountPoint(target, true) && ::mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV,
                                                     plan.tmpfs_options[i].c_str()) == 0;
    case MountKind::kProc:
      return MakeMountPoint(target, true) &&
             ::mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
    case MountKind::kDevpts:
      return ::mount("devpts", target, "devpts", MS_NOSUID | MS_NOEXEC,
                     "newinstance,ptmxmode=0666,mode=0620") == 0;
    case MountKind::kSymlink:
      return ::symlink(op.source.c_str(), target) == 0;
    case MountKind::kFile:
      return WriteFile(target, op.data);
    case MountKind::kDir:
      return ::mkdir(target, op.mode) == 0 || errno == EEXIST;
    case MountKind::kReadOnly:
      return SetReadOnly(target, false);
    case MountKind::kBindSelfReadOnly:
      if (Absent(target)) return true;  // not in this kernel: nothing to protect
      return ::mount(target, target, nullptr, MS_BIND | MS_REC, nullptr) == 0 &&
             SetReadOnly(target, true);
    case MountKind::kMaskFile:
      if (Absent(target)) return true;  // not in this kernel: nothing to hide
      return ::mount(plan.dev_null_path.c_str(), target, nullptr, MS_BIND, nullptr) == 0;
    case MountKind::kMaskDir:
      if (Absent(target)) return true;
      return ::mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                     "size=4k,nr_inodes=1,mode=0555") == 0;
  }
  errno = EINVAL;
  return false;
}

}  // namespace

bool ExecuteMountPlan(ChildPlan& plan) {
  for (size_t i = 0; i < plan.mounts->ops.size(); ++i) {
    if (!ExecuteOp(plan, i)) return Fail(plan, ChildStep::kMount, plan.mounts->ops[i].target);
    if (plan.source_trees[i] >= 0) ::close(plan.source_trees[i]);
  }
  return true;
}

}  // namespace agentbox
