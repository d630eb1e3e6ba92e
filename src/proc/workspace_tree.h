// The fd-relative walk every host-side pass over a workspace tree shares: snapshot restore and
// copy (tree_sync.h), diff (tree_diff.h) and digest (workspace_digest.h).
//
// Host side, as root, over a tree a sandbox writes: nothing here follows a symlink (every open
// is O_NOFOLLOW, every stat AT_SYMLINK_NOFOLLOW, names are single components read from the
// directory itself), crosses into another mount, or opens anything but a directory or a regular
// file (O_NONBLOCK, so a FIFO could not block it even if one were met).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct TreeEntry {
  std::string name;
  struct stat st;
};

// The entries of the directory dirfd ("." and ".." left out), sorted bytewise by name: two
// trees are walked side by side in one order. An entry that vanishes meanwhile is left out.
StatusOr<std::vector<TreeEntry>> ReadTreeDir(int dirfd);

// Opens the subdirectory `name` of dirfd; kInvalidArgument when it is no longer a directory or
// lies on another filesystem than dev (a mount: never crossed).
StatusOr<UniqueFd> OpenTreeDir(int dirfd, const std::string& name, dev_t dev);
// Opens the regular file `name` for reading; kInvalidArgument when it is no longer one.
StatusOr<UniqueFd> OpenTreeFile(int dirfd, const std::string& name);

// rm -rf of `name` in dirfd, fd-relative: a symlink is removed, never followed.
Status RemoveTreeAt(int dirfd, const std::string& name);

// Nanoseconds since the epoch of a stat time.
int64_t TimeNs(const struct timespec& t);

// Whether `a` (in a snapshot) and `b` (in the tree it was taken of) are still one and the same
// file: a btrfs snapshot keeps each file's inode number and times, and every change to a file
// after it moves its ctime (which no unprivileged call can set). Same inode, type, size, mode,
// owner, mtime and ctime -> unchanged. A ctime at or after `racy_after_ns` is never trusted:
// file times come from a coarse clock, so a change in the same tick as the snapshot may keep
// its ctime (git's "racy" entries). racy_after_ns is the snapshot's time less a margin.
bool UnchangedSince(const struct stat& a, const struct stat& b, int64_t racy_after_ns);

// The margin below a snapshot's time from which a file's ctime is "racy": far above the tick
// of any kernel's coarse clock (1-10 ms).
inline constexpr int64_t kRacyMarginNs = 100'000'000;

// "file", "dir", "symlink" or "other" for a mode.
const char* TreeTypeName(mode_t mode);

}  // namespace agentbox
