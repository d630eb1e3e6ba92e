// list_dir, stat, mkdir and remove: the operations on directory entries.
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <vector>

#include "agent/file_request.h"
#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

// A tree deeper than this is refused rather than holding one fd per level without bound.
constexpr int kMaxRemoveDepth = 256;
// list_dir stops reading a directory here (and says "truncated") to bound the agent's memory.
constexpr size_t kMaxListEntries = 100000;

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

// The names in directory dir_fd except "." and "..", at most `limit` (sets *truncated).
StatusOr<std::vector<std::string>> ReadNames(int dir_fd, const WorkspacePath& path, size_t limit,
                                             bool* truncated) {
  // A dup: fdopendir() takes the fd, and the caller still needs its own.
  int dup_fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0) return PathError(path, "list", errno);
  std::unique_ptr<DIR, DirCloser> dir(::fdopendir(dup_fd));
  if (!dir) {
    ::close(dup_fd);
    return PathError(path, "list", errno);
  }
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* entry = ::readdir(dir.get())) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (names.size() == limit) {
      if (truncated) *truncated = true;
      break;
    }
    names.push_back(std::move(name));
  }
  if (errno != 0) return PathError(path, "list", errno);
  return names;
}

// The entries of list_dir, sorted by name, cut short so the response fits in one frame.
nlohmann::json EntriesJson(int dir_fd, std::vector<std::string> names, bool* truncated) {
  std::sort(names.begin(), names.end());
  nlohmann::json entries = nlohmann::json::array();
  size_t budget = kMaxFramePayload - 4096;
  for (const std::string& name : names) {
    struct stat st;
    // Not followed: a symlink is listed as one, whatever it points at. ENOENT: removed meanwhile.
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    nlohmann::json entry = StatJson(st);
    entry["name"] = name;
    size_t cost = entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size() + 1;
    if (cost > budget) {
      *truncated = true;
      break;
    }
    budget -= cost;
    entries.push_back(std::move(entry));
  }
  return entries;
}

Status RemoveTree(int parent_fd, const std::string& name, const WorkspacePath& path, int depth);

// Removes everything in dir_fd; subdirectories recursively, symlinks as links.
Status RemoveChildren(int dir_fd, const WorkspacePath& path, int depth) {
  AB_ASSIGN_OR_RETURN(std::vector<std::string> names,
                      ReadNames(dir_fd, path, static_cast<size_t>(-1), nullptr));
  for (const std::string& name : names) {
    struct stat st;
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return PathError(path, "remove", errno);
    }
    if (S_ISDIR(st.st_mode)) {
      AB_RETURN_IF_ERROR(RemoveTree(dir_fd, name, path, depth + 1));
    } else if (::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT) {
      return PathError(path, "remove", errno);
    }
  }
  return OkStatus();
}

// Removes directory `name` of parent_fd and its contents. The directory is opened with
// RESOLVE_NO_SYMLINKS relative to its parent's fd, so swapping it for a symlink mid-walk makes
// the walk fail instead of emptying the symlink's target.
Status RemoveTree(int parent_fd, const std::string& name, const WorkspacePath& path, int depth) {
  if (depth > kMaxRemoveDepth) {
    return ResourceExhausted("path \"" + path.given + "\" is more than " +
                             std::to_string(kMaxRemoveDepth) + " directories deep");
  }
  AB_ASSIGN_OR_RETURN(UniqueFd dir,
                      OpenBeneath(parent_fd, WorkspacePath{path.given, name},
                                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0, RESOLVE_NO_SYMLINKS));
  AB_RETURN_IF_ERROR(RemoveChildren(dir.get(), path, depth));
  if (::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return PathError(path, "remove", errno);
  }
  return OkStatus();
}

}  // namespace

StatusOr<nlohmann::json> ListDirOp(const FileRequest& r) {
  AB_ASSIGN_OR_RETURN(WorkspacePath path, PathField(r.request));
  AB_ASSIGN_OR_RETURN(UniqueFd dir, OpenBeneath(r.workspace_fd, path, O_RDONLY | O_DIRECTORY));
  bool truncated = false;
  AB_ASSIGN_OR_RETURN(std::vector<std::string> names,
                      ReadNames(dir.get(), path, kMaxListEntries, &truncated));
  nlohmann::json entries = EntriesJson(dir.get(), std::move(names), &truncated);
  nlohmann::json response = {{"entries", std::move(entries)}};
  if (truncated) response["truncated"] = true;
  return response;
}

// lstat semantics: a symlink is reported as a symlink, via fstatat() on its parent.
StatusOr<nlohmann::json> StatOp(const FileRequest& r) {
  AB_ASSIGN_OR_RETURN(WorkspacePath path, PathField(r.request));
  struct stat st;
  if (!HasEntryName(path)) {  // /workspace itself, "dir/..": a directory, never a symlink
    AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenBeneath(r.workspace_fd, path, O_PATH));
    if (::fstat(fd.get(), &st) != 0) return PathError(path, "stat", errno);
    return StatJson(st);
  }
  AB_ASSIGN_OR_RETURN(ParentDir parent, OpenParentBeneath(r.workspace_fd, path));
  if (::fstatat(parent.fd.get(), parent.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return PathError(path, "stat", errno);
  }
  return StatJson(st);
}

StatusOr<nlohmann::json> MkdirOp(const FileRequest& r) {
  AB_ASSIGN_OR_RETURN(WorkspacePath path, PathField(r.request));
  AB_ASSIGN_OR_RETURN(bool parents, BoolField(r.request, "parents", false));
  if (parents) {  // `mkdir -p`: an existing directory is fine
    AB_RETURN_IF_ERROR(MakeDirsBeneath(r.workspace_fd, path.rel, path).status());
    return nlohmann::json::object();
  }
  AB_ASSIGN_OR_RETURN(ParentDir parent, OpenParentBeneath(r.workspace_fd, path));
  if (::mkdirat(parent.fd.get(), parent.name.c_str(), 0755) != 0) {
    return PathError(path, "mkdir", errno);
  }
  return nlohmann::json::object();
}

// Removes the entry itself: a symlink is unlinked, its target untouched. /workspace itself is
// refused by OpenParentBeneath (it has no entry name).
StatusOr<nlohmann::json> RemoveOp(const FileRequest& r) {
  AB_ASSIGN_OR_RETURN(WorkspacePath path, PathField(r.request));
  AB_ASSIGN_OR_RETURN(bool recursive, BoolField(r.request, "recursive", false));
  AB_ASSIGN_OR_RETURN(ParentDir parent, OpenParentBeneath(r.workspace_fd, path));
  const char* name = parent.name.c_str();
  struct stat st;
  if (::fstatat(parent.fd.get(), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return PathError(path, "remove", errno);
  }
  if (S_ISDIR(st.st_mode) && recursive) {
    AB_RETURN_IF_ERROR(RemoveTree(parent.fd.get(), parent.name, path, 0));
  } else if (::unlinkat(parent.fd.get(), name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0) {
    if (errno == ENOTEMPTY) {
      return InvalidArgument("directory \"" + path.given + "\" is not empty (use recursive)");
    }
    return PathError(path, "remove", errno);
  }
  return nlohmann::json::object();
}

}  // namespace agentbox
