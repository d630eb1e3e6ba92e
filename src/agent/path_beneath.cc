#include "agent/path_beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace agentbox {
namespace {

constexpr std::string_view kWorkspace = "/workspace";

// RESOLVE_BENEATH refuses `..` above the dirfd, absolute paths and symlinks that lead out
// (EXDEV); RESOLVE_NO_MAGICLINKS refuses /proc/<pid>/fd-style links, which jump anywhere.
constexpr uint64_t kResolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;

// Returns the new fd or -1 with errno. No fallback to openat(): on a kernel without openat2
// (< 5.6) every file operation fails closed with ENOSYS.
int RawOpenBeneath(int dirfd, const std::string& rel, uint64_t flags, uint64_t mode,
                   uint64_t resolve) {
  struct open_how how = {};
  how.flags = flags | O_CLOEXEC;
  how.mode = mode;
  how.resolve = resolve;
  for (int attempt = 0;; ++attempt) {
    long fd = ::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof(how));
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a concurrent rename or mount raced with the `..` check; the kernel asks us to
    // retry rather than risk a wrong answer.
    if ((errno != EAGAIN && errno != EINTR) || attempt >= 16) return -1;
  }
}

std::vector<std::string> SplitComponents(const std::string& rel) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    if (slash == std::string::npos) slash = rel.size();
    if (slash > start) parts.push_back(rel.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string JoinComponents(const std::vector<std::string>& parts, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  return out.empty() ? "." : out;
}

// Splits off the last component; refuses "." and ".." there, which name no entry.
StatusOr<std::pair<std::string, std::string>> SplitParent(const WorkspacePath& path) {
  std::vector<std::string> parts = SplitComponents(path.rel);
  if (parts.empty() || parts.back() == "." || parts.back() == "..") {
    return InvalidArgument("path \"" + path.given +
                           "\" names /workspace or a parent directory, "
                           "not an entry in it");
  }
  return std::make_pair(JoinComponents(parts, parts.size() - 1), parts.back());
}

}  // namespace

std::string WorkspacePath::Absolute() const {
  return rel == "." ? std::string(kWorkspace) : std::string(kWorkspace) + "/" + rel;
}

StatusOr<WorkspacePath> ParseWorkspacePath(std::string_view path) {
  if (path.empty()) return InvalidArgument("path is empty");
  std::string given(path);
  // A NUL would silently cut the path short at the syscall.
  if (path.find('\0') != std::string_view::npos) {
    return InvalidArgument("path contains a NUL byte");
  }
  std::string_view rel = path;
  if (path.front() == '/') {
    bool in_workspace = path.substr(0, kWorkspace.size()) == kWorkspace &&
                        (path.size() == kWorkspace.size() || path[kWorkspace.size()] == '/');
    if (!in_workspace) return PermissionDenied("path \"" + given + "\" is outside /workspace");
    rel = path.substr(kWorkspace.size());
    while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  }
  return WorkspacePath{given, rel.empty() ? "." : std::string(rel)};
}

bool HasEntryName(const WorkspacePath& path) {
  std::vector<std::string> parts = SplitComponents(path.rel);
  return !parts.empty() && parts.back() != "." && parts.back() != "..";
}

StatusOr<UniqueFd> OpenBeneath(int workspace_fd, const WorkspacePath& path, uint64_t flags,
                               uint64_t mode, uint64_t extra_resolve) {
  int fd = RawOpenBeneath(workspace_fd, path.rel, flags, mode, kResolve | extra_resolve);
  if (fd < 0) return PathError(path, "open", errno);
  return UniqueFd(fd);
}

StatusOr<ParentDir> OpenParentBeneath(int workspace_fd, const WorkspacePath& path) {
  AB_ASSIGN_OR_RETURN(auto split, SplitParent(path));
  int fd = RawOpenBeneath(workspace_fd, split.first, O_PATH | O_DIRECTORY, 0, kResolve);
  if (fd < 0) return PathError(path, "open parent directory of", errno);
  return ParentDir{UniqueFd(fd), split.second};
}

StatusOr<ParentDir> MakeParentsBeneath(int workspace_fd, const WorkspacePath& path) {
  AB_ASSIGN_OR_RETURN(auto split, SplitParent(path));
  AB_ASSIGN_OR_RETURN(UniqueFd fd, MakeDirsBeneath(workspace_fd, split.first, path));
  return ParentDir{std::move(fd), split.second};
}

StatusOr<UniqueFd> MakeDirsBeneath(int workspace_fd, const std::string& rel_dir,
                                   const WorkspacePath& for_errors) {
  constexpr uint64_t kDirFlags = O_PATH | O_DIRECTORY;
  UniqueFd current(RawOpenBeneath(workspace_fd, ".", kDirFlags, 0, kResolve));
  if (!current.valid()) return PathError(for_errors, "open /workspace for", errno);
  std::vector<std::string> parts = SplitComponents(rel_dir);
  for (size_t i = 0; i < parts.size(); ++i) {
    // Each prefix is resolved from /workspace again, so a symlink swapped in meanwhile is still
    // judged by RESOLVE_BENEATH; mkdirat() only ever gets one component and a checked parent.
    std::string prefix = JoinComponents(parts, i + 1);
    int fd = RawOpenBeneath(workspace_fd, prefix, kDirFlags, 0, kResolve);
    if (fd < 0 && errno == ENOENT) {
      if (::mkdirat(current.get(), parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
        return PathError(for_errors, "mkdir", errno);
      }
      fd = RawOpenBeneath(workspace_fd, prefix, kDirFlags, 0, kResolve);
    }
    if (fd < 0) return PathError(for_errors, "open directory", errno);
    current.reset(fd);
  }
  return current;
}

Status PathError(const WorkspacePath& path, std::string_view what, int err) {
  std::string quoted = "\"" + path.given + "\"";
  if (err == EXDEV) return PermissionDenied("path " + quoted + " is outside /workspace");
  std::string message = std::string(what) + " " + quoted + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
      return NotFound(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return PermissionDenied(message);
    case EEXIST:
      return AlreadyExists(message);
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EMFILE:
    case ENFILE:
      return ResourceExhausted(message);
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
    case ENOTEMPTY:
    case ENAMETOOLONG:
    case EINVAL:
    case ETXTBSY:
    case EBUSY:
      return InvalidArgument(message);
    default:
      return Internal(message);
  }
}

}  // namespace agentbox
