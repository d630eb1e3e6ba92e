// Resolving protocol paths strictly beneath /workspace (runs in the agent, inside the sandbox).
//
// Why fds and not string checks: a path checked as a string and opened later can be swapped for
// a symlink in between by the very processes we contain (CVE-2018-15664, the `docker cp`
// symlink-exchange race). So the only lexical step here is stripping the "/workspace" prefix;
// every lookup goes through openat2(2) with RESOLVE_BENEATH (or, where the kernel lacks it, a
// walk that opens one component at a time from a held fd: agent/beneath_walk.h), relative to an
// fd of /workspace, and operations on a final component use the *at() call on an fd of its
// parent, never a path string from the root.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

// The resolver behind every function here: the kernel's openat2(2), or where the kernel answers
// it with ENOSYS (Linux < 5.6; gVisor's runsc of 2022, under --runtime runsc) the same
// resolution done in user space by WalkBeneath (agent/beneath_walk.h). kAuto decides on the first
// call and keeps the answer for the process; tests force one.
enum class BeneathResolver { kAuto, kOpenat2, kWalk };
void SetBeneathResolverForTesting(BeneathResolver resolver);
BeneathResolver CurrentBeneathResolver();

// openat2(dirfd, rel, {flags | O_CLOEXEC, mode, resolve}) by the resolver above; resolve must
// hold RESOLVE_BENEATH. EAGAIN (a rename raced with a `..`) and EINTR are retried. Returns the
// fd, or -1 with errno.
int OpenAt2Beneath(int dirfd, const std::string& rel, uint64_t flags, uint64_t mode,
                   uint64_t resolve);

// A protocol path mapped to /workspace.
struct WorkspacePath {
  std::string given;  // as the client wrote it, for error messages
  std::string rel;    // relative to /workspace; "." for /workspace itself

  // "/workspace" or "/workspace/<rel>", for messages that name the file.
  std::string Absolute() const;
};

// Accepts "/workspace", "/workspace/...", or a relative path. Refuses (before any syscall) an
// empty path, a NUL byte (kInvalidArgument) and any other absolute path (kPermissionDenied).
StatusOr<WorkspacePath> ParseWorkspacePath(std::string_view path);

// OpenAt2Beneath(workspace_fd, path.rel, flags, mode) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS
// | extra_resolve; O_CLOEXEC is always added. Errors are mapped by PathError().
StatusOr<UniqueFd> OpenBeneath(int workspace_fd, const WorkspacePath& path, uint64_t flags,
                               uint64_t mode = 0, uint64_t extra_resolve = 0);

// False when the last component is "." or ".." (or the path is /workspace itself).
bool HasEntryName(const WorkspacePath& path);

// The parent directory (an O_PATH fd, opened beneath /workspace) and the last component of a
// path, for the *at() calls that act on the component itself (unlinkat, mkdirat, renameat,
// fstatat with AT_SYMLINK_NOFOLLOW). kInvalidArgument when the last component is "." or ".."
// (e.g. /workspace itself): such a path names no entry of its parent.
struct ParentDir {
  UniqueFd fd;
  std::string name;
};
StatusOr<ParentDir> OpenParentBeneath(int workspace_fd, const WorkspacePath& path);

// Like OpenParentBeneath, but creates the missing parent directories first (mode 0755), one
// mkdirat() at a time on an fd resolved beneath /workspace.
StatusOr<ParentDir> MakeParentsBeneath(int workspace_fd, const WorkspacePath& path);

// `mkdir -p` beneath /workspace; returns an O_PATH fd of the directory.
StatusOr<UniqueFd> MakeDirsBeneath(int workspace_fd, const std::string& rel_dir,
                                   const WorkspacePath& for_errors);

// Maps an errno of an operation on `path` to a Status: EXDEV (a `..` or a symlink leading out,
// refused by RESOLVE_BENEATH) -> kPermissionDenied "path ... is outside /workspace"; ENOENT ->
// kNotFound; EACCES/EPERM/EROFS -> kPermissionDenied; EEXIST -> kAlreadyExists;
// ENOSPC/EDQUOT/EFBIG -> kResourceExhausted; ENOTDIR/EISDIR/ELOOP/ENOTEMPTY/... ->
// kInvalidArgument; anything else kInternal.
Status PathError(const WorkspacePath& path, std::string_view what, int err);

}  // namespace agentbox
