// Child side: builds the sandbox's filesystem from the MountPlan (see policy/mount_plan.h).
//
// Runs in the cloned child, inside its new user + mount namespaces, as root of the user
// namespace. No allocation: every string was prepared by the parent.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "proc/child_steps.h"
#include "proc/mount_syscalls.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

int KernelMount(const char* source, const char* target, const char* fstype, unsigned long flags,
                const void* data) {
  return ::mount(source, target, fstype, flags, data);
}
int KernelOpen(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }

constexpr MountSyscalls kKernel = {KernelMount, sys::MoveMount, sys::MountSetattr,
                                   ::mkdir,     KernelOpen,     ::write,
                                   ::close,     ::symlink,      ::access};

bool Fail(ChildPlan& plan, ChildStep step, const std::string& detail) {
  ReportChildError(plan, step, errno, detail.c_str());
  return false;
}

// Creates an empty mount point of the right type; an existing one is fine.
bool MakeMountPoint(const MountSyscalls& k, const char* path, bool directory) {
  if (directory) return k.mkdir(path, 0755) == 0 || errno == EEXIST;
  int fd = k.open(path, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0) return errno == EEXIST;
  k.close(fd);
  return true;
}

// Attaches a tree the parent cloned (mount_trees.cc) at target.
bool AttachTree(const MountSyscalls& k, int tree, const char* target, bool directory) {
  return MakeMountPoint(k, target, directory) &&
         k.move_mount(tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) == 0;
}

bool SetReadOnly(const MountSyscalls& k, const char* target, bool recursive) {
  struct mount_attr attr = {};
  attr.attr_set = MOUNT_ATTR_RDONLY;
  return k.mount_setattr(AT_FDCWD, target, recursive ? AT_RECURSIVE : 0, &attr) == 0;
}

bool WriteFile(const MountSyscalls& k, const char* path, const std::string& data) {
  int fd = k.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444);
  if (fd < 0) return false;
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = k.write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      k.close(fd);
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return k.close(fd) == 0;
}

bool Absent(const MountSyscalls& k, const char* path) {
  return k.access(path, F_OK) != 0 && errno == ENOENT;
}

bool ExecuteOp(const MountSyscalls& k, ChildPlan& plan, size_t i) {
  const MountOp& op = plan.box.mounts->ops[i];
  const char* target = plan.box.full_targets[i].c_str();
  switch (op.kind) {
    case MountKind::kBindReadOnly:
    case MountKind::kDevice:
    case MountKind::kWorkspace:
    case MountKind::kRootTree:  // stacked on the root tmpfs: later targets resolve into it
      return AttachTree(k, plan.box.source_trees[i], target, plan.box.source_is_dir[i] != 0);
    case MountKind::kTmpfs:
      return MakeMountPoint(k, target, true) &&
             k.mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV,
                     plan.box.tmpfs_options[i].c_str()) == 0;
    case MountKind::kProc:
      return MakeMountPoint(k, target, true) &&
             k.mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
    case MountKind::kDevpts:
      return k.mount("devpts", target, "devpts", MS_NOSUID | MS_NOEXEC,
                     "newinstance,ptmxmode=0666,mode=0620") == 0;
    case MountKind::kSymlink:
      return k.symlink(op.source.c_str(), target) == 0;
    case MountKind::kFile:
      return WriteFile(k, target, op.data);
    case MountKind::kDir:
      return k.mkdir(target, op.mode) == 0 || errno == EEXIST;
    case MountKind::kReadOnly:
      return SetReadOnly(k, target, false);
    case MountKind::kBindSelfReadOnly:
      if (Absent(k, target)) return true;  // not in this kernel: nothing to protect
      return k.mount(target, target, nullptr, MS_BIND | MS_REC, nullptr) == 0 &&
             SetReadOnly(k, target, true);
    case MountKind::kMaskFile:
      if (Absent(k, target)) return true;  // not in this kernel: nothing to hide
      return k.mount(plan.box.dev_null_path.c_str(), target, nullptr, MS_BIND, nullptr) == 0;
    case MountKind::kMaskDir:
      if (Absent(k, target)) return true;
      return k.mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                     "size=4k,nr_inodes=1,mode=0555") == 0;
  }
  errno = EINVAL;
  return false;
}

}  // namespace

const MountSyscalls& KernelMountSyscalls() { return kKernel; }

bool ExecuteMountPlan(ChildPlan& plan) {
  const MountSyscalls& k = plan.box.mount_syscalls ? *plan.box.mount_syscalls : kKernel;
  for (size_t i = 0; i < plan.box.mounts->ops.size(); ++i) {
    if (!ExecuteOp(k, plan, i))
      return Fail(plan, ChildStep::kMount, plan.box.mounts->ops[i].target);
    if (plan.box.source_trees[i] >= 0) k.close(plan.box.source_trees[i]);
  }
  return true;
}

}  // namespace agentbox
