// Thin wrappers for syscalls glibc 2.36 does not wrap (or wraps in headers that clash with
// <linux/mount.h>). They return -1 and set errno like libc; no allocation, so they are safe to
// call in a freshly cloned child.
#pragma once

#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>

namespace agentbox::sys {

inline long Clone3(struct clone_args* args) { return ::syscall(SYS_clone3, args, sizeof(*args)); }
inline int PivotRoot(const char* new_root, const char* put_old) {
  return static_cast<int>(::syscall(SYS_pivot_root, new_root, put_old));
}
inline int OpenTree(int dirfd, const char* path, unsigned flags) {
  return static_cast<int>(::syscall(SYS_open_tree, dirfd, path, flags));
}
inline int MoveMount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path,
                     unsigned flags) {
  return static_cast<int>(
      ::syscall(SYS_move_mount, from_dirfd, from_path, to_dirfd, to_path, flags));
}
inline int MountSetattr(int dirfd, const char* path, unsigned flags, struct mount_attr* attr) {
  return static_cast<int>(::syscall(SYS_mount_setattr, dirfd, path, flags, attr, sizeof(*attr)));
}
inline int PidfdOpen(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }
inline int PidfdSendSignal(int pidfd, int sig) {
  return static_cast<int>(::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0));
}
// dup2 that also works when from == to: the fd ends up at `to` without FD_CLOEXEC either way
// (dup2 onto itself would keep the flag, and the fd would vanish at exec).
inline int DupTo(int from, int to) {
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0 ? to : -1;
  return ::dup2(from, to);
}
// openat2(2): path resolution the kernel keeps beneath dirfd (RESOLVE_BENEATH and friends).
inline int Openat2(int dirfd, const char* path, int flags, uint64_t resolve) {
  struct open_how how = {};
  how.flags = static_cast<uint64_t>(flags);
  how.resolve = resolve;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path, &how, sizeof(how)));
}
// The new mount API's filesystem context calls (fsopen(2), fsconfig(2), fsmount(2)).
inline int FsOpen(const char* fs, unsigned flags) {
  return static_cast<int>(::syscall(SYS_fsopen, fs, flags));
}
inline int FsConfig(int fd, unsigned cmd, const char* key, const void* value, int aux) {
  return static_cast<int>(::syscall(SYS_fsconfig, fd, cmd, key, value, aux));
}
inline int FsMount(int fd, unsigned flags, unsigned attrs) {
  return static_cast<int>(::syscall(SYS_fsmount, fd, flags, attrs));
}
inline int CloseRange(unsigned first, unsigned last) {
  return static_cast<int>(::syscall(SYS_close_range, first, last, 0));
}

}  // namespace agentbox::sys
