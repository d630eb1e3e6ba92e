#include "agent/path_beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "agent/beneath_walk.h"

namespace agentbox {
namespace {

constexpr std::string_view kWorkspace = "/workspace";

// RESOLVE_BENEATH refuses `..` above the dirfd, absolute paths and symlinks that lead out
// (EXDEV); RESOLVE_NO_MAGICLINKS refuses /proc/<pid>/fd-style links, which jump anywhere.
constexpr uint64_t kResolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;

int RawOpenat2(int dirfd, const std::string& rel, uint64_t flags, uint64_t mode, uint64_t resolve) {
  struct open_how how = {};
  how.flags = flags | O_CLOEXEC;
  how.mode = mode;
  how.resolve = resolve;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof(how)));
}

// Which resolver this process uses: decided by the first openat2 call, or forced by a test.
std::atomic<BeneathResolver> g_resolver{BeneathResolver::kAuto};

// One lookup: openat2, or the walk once openat2 said ENOSYS (it never comes back in a process).
int OpenOnce(int dirfd, const std::string& rel, uint64_t flags, uint64_t mode, uint64_t resolve) {
  BeneathResolver resolver = g_resolver.load(std::memory_order_relaxed);
  if (resolver != BeneathResolver::kWalk) {
    int fd = RawOpenat2(dirfd, rel, flags, mode, resolve);
    bool missing = fd < 0 && errno == ENOSYS;
    if (!missing || resolver == BeneathResolver::kOpenat2) {
      if (resolver == BeneathResolver::kAuto) {
        g_resolver.store(BeneathResolver::kOpenat2, std::memory_order_relaxed);
      }
      return fd;  // the store leaves errno alone
    }
    g_resolver.store(BeneathResolver::kWalk, std::memory_order_relaxed);
  }
  return WalkBeneath(dirfd, rel, flags, mode, resolve);
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

int OpenAt2Beneath(int dirfd, const std::string& rel, uint64_t flags, uint64_t mode,
                   uint64_t resolve) {
  for (int attempt = 0;; ++attempt) {
    int fd = OpenOnce(dirfd, rel, flags, mode, resolve);
    if (fd >= 0) return fd;
    // EAGAIN: a concurrent rename or mount raced with the `..` check; both resolvers ask us to
    // retry rather than risk a wrong answer.
    if ((errno != EAGAIN && errno != EINTR) || attempt >= 16) return -1;
  }
}

void SetBeneathResolverForTesting(BeneathResolver resolver) {
  g_resolver.store(resolver, std::memory_order_relaxed);
}

BeneathResolver CurrentBeneathResolver() { return g_resolver.load(std::memory_order_relaxed); }

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
  int fd = OpenAt2Beneath(workspace_fd, path.rel, flags, mode, kResolve | extra_resolve);
  if (fd < 0) return PathError(path, "open", errno);
  return UniqueFd(fd);
}

StatusOr<ParentDir> OpenParentBeneath(int workspace_fd, const WorkspacePath& path) {
  AB_ASSIGN_OR_RETURN(auto split, SplitParent(path));
  int fd = OpenAt2Beneath(workspace_fd, split.first, O_PATH | O_DIRECTORY, 0, kResolve);
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
  UniqueFd current(OpenAt2Beneath(workspace_fd, ".", kDirFlags, 0, kResolve));
  if (!current.valid()) return PathError(for_errors, "open /workspace for", errno);
  std::vector<std::string> parts = SplitComponents(rel_dir);
  for (size_t i = 0; i < parts.size(); ++i) {
    // Each prefix is resolved from /workspace again, so a symlink swapped in meanwhile is still
    // judged by RESOLVE_BENEATH; mkdirat() only ever gets one component and a checked parent.
    std::string prefix = JoinComponents(parts, i + 1);
    int fd = OpenAt2Beneath(workspace_fd, prefix, kDirFlags, 0, kResolve);
    if (fd < 0 && errno == ENOENT) {
      if (::mkdirat(current.get(), parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
        return PathError(for_errors, "mkdir", errno);
      }
      fd = OpenAt2Beneath(workspace_fd, prefix, kDirFlags, 0, kResolve);
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
