#include "proc/workspace_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace agentbox {

StatusOr<std::vector<TreeEntry>> ReadTreeDir(int dirfd) {
  // fdopendir owns the fd it is given: a fresh open of the same directory, read from its start.
  int own = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (own < 0) return ErrnoStatus("open a workspace directory");
  DIR* dir = ::fdopendir(own);
  if (dir == nullptr) {
    ::close(own);
    return ErrnoStatus("read a workspace directory");
  }
  std::vector<TreeEntry> out;
  Status failed;
  errno = 0;
  while (struct dirent* d = ::readdir(dir)) {
    const std::string name = d->d_name;
    if (name == "." || name == "..") continue;
    TreeEntry e{name, {}};
    if (::fstatat(dirfd, name.c_str(), &e.st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;  // removed meanwhile
      failed = ErrnoStatus("stat " + name);
      break;
    }
    out.push_back(std::move(e));
    errno = 0;
  }
  if (failed.ok() && errno != 0) failed = ErrnoStatus("read a workspace directory");
  ::closedir(dir);
  if (!failed.ok()) return failed;
  std::sort(out.begin(), out.end(),
            [](const TreeEntry& a, const TreeEntry& b) { return a.name < b.name; });
  return out;
}

StatusOr<UniqueFd> OpenTreeDir(int dirfd, const std::string& name, dev_t dev) {
  UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOTDIR || errno == ELOOP) {
      return InvalidArgument(name + " is no longer a directory");
    }
    return ErrnoStatus("open the directory " + name);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("stat " + name);
  if (st.st_dev != dev) return InvalidArgument(name + " is a mount point");
  return fd;
}

StatusOr<UniqueFd> OpenTreeFile(int dirfd, const std::string& name) {
  UniqueFd fd(
      ::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ELOOP) return InvalidArgument(name + " is no longer a regular file");
    return ErrnoStatus("open " + name);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("stat " + name);
  if (!S_ISREG(st.st_mode)) return InvalidArgument(name + " is no longer a regular file");
  return fd;
}

Status RemoveTreeAt(int dirfd, const std::string& name) {
  if (::unlinkat(dirfd, name.c_str(), 0) == 0 || errno == ENOENT) return OkStatus();
  if (errno != EISDIR && errno != EPERM) return ErrnoStatus("remove " + name);
  struct stat st;
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return ErrnoStatus("stat " + name);
  }
  AB_ASSIGN_OR_RETURN(UniqueFd sub, OpenTreeDir(dirfd, name, st.st_dev));
  AB_ASSIGN_OR_RETURN(std::vector<TreeEntry> entries, ReadTreeDir(sub.get()));
  for (const TreeEntry& e : entries) {
    AB_RETURN_IF_ERROR(RemoveTreeAt(sub.get(), e.name).WithContext(name));
  }
  if (::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return ErrnoStatus("remove the directory " + name);
  }
  return OkStatus();
}

int64_t TimeNs(const struct timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

bool UnchangedSince(const struct stat& a, const struct stat& b, int64_t racy_after_ns) {
  return a.st_ino == b.st_ino && a.st_mode == b.st_mode && a.st_size == b.st_size &&
         a.st_uid == b.st_uid && a.st_gid == b.st_gid && a.st_nlink == b.st_nlink &&
         TimeNs(a.st_mtim) == TimeNs(b.st_mtim) && TimeNs(a.st_ctim) == TimeNs(b.st_ctim) &&
         TimeNs(b.st_ctim) < racy_after_ns;
}

const char* TreeTypeName(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "dir";
  if (S_ISLNK(mode)) return "symlink";
  return "other";
}

}  // namespace agentbox
