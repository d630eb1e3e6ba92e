// The calls the mount executor (proc/mount_ops.cc) makes, as a table of plain function pointers,
// so a unit test can record them instead of making them (no root, no namespace: the child's
// executor is tested on its own). The child calls through the table without allocating.
#pragma once

#include <linux/mount.h>
#include <sys/types.h>

namespace agentbox {

struct MountSyscalls {
  int (*mount)(const char* source, const char* target, const char* fstype, unsigned long flags,
               const void* data);
  int (*move_mount)(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path,
                    unsigned flags);
  int (*mount_setattr)(int dirfd, const char* path, unsigned flags, struct mount_attr* attr);
  int (*mkdir)(const char* path, mode_t mode);
  int (*open)(const char* path, int flags, mode_t mode);
  ssize_t (*write)(int fd, const void* data, size_t size);
  int (*close)(int fd);
  int (*symlink)(const char* target, const char* link_path);
  int (*access)(const char* path, int mode);
};

// The kernel's: what every sandbox uses (ChildPlan::mount_syscalls null).
const MountSyscalls& KernelMountSyscalls();

}  // namespace agentbox
