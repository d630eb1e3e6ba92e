// The user-space twin of openat2(RESOLVE_BENEATH), for kernels that answer openat2 with ENOSYS:
// Linux < 5.6, and gVisor's runsc of 2022 (Debian 12's), under `--runtime runsc`.
//
// The walk resolves a path one component at a time from the root fd with
// openat(O_PATH | O_NOFOLLOW) on a directory fd it holds, so the kernel never sees more than one
// name and every symlink or `..` the sandbox planted is judged here before it is used:
//   - an absolute path or symlink target, or a `..` above the root fd: EXDEV, as RESOLVE_BENEATH;
//   - a symlink is followed by reading its text (readlinkat) and walking that the same way from
//     the directory holding it; the 41st in one lookup gives ELOOP (the kernel's MAXSYMLINKS);
//     with RESOLVE_NO_SYMLINKS the first gives ELOOP;
//   - a symlink on procfs gives ELOOP, with or without RESOLVE_NO_MAGICLINKS: the walk cannot
//     jump through a magic link (/proc/<pid>/fd/N, /proc/<pid>/root), and refusing procfs links
//     outright is stricter than the kernel, which lets plain ones like /proc/self through;
//   - `..` goes back to the directory the walk came from, checked by device and inode: when a
//     concurrent rename moved the current directory the walk fails with EAGAIN, as openat2 does,
//     and the caller retries.
// The last component is opened with the caller's flags plus O_NOFOLLOW, and must be the very
// inode an O_PATH probe found just before (device and inode compared), else EAGAIN: runsc follows
// a symlink despite O_NOFOLLOW when O_DIRECTORY is given, and an entry swapped between the probe
// and the open is caught the same way.
#pragma once

#include <cstdint>
#include <string_view>

namespace agentbox {

// Opens `rel` beneath root_fd like openat2(root_fd, rel, {flags | O_CLOEXEC, mode, resolve}):
// the same fd or the same errno, within one lookup (no retry on EAGAIN). resolve must hold
// RESOLVE_BENEATH and may add RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS; any other resolve
// flag gives EINVAL (fail closed: the walk does not implement it). Returns the fd, or -1 with
// errno.
int WalkBeneath(int root_fd, std::string_view rel, uint64_t flags, uint64_t mode, uint64_t resolve);

}  // namespace agentbox
