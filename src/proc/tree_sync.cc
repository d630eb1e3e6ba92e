#include "proc/tree_sync.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <map>
#include <string>
#include <vector>

#include "proc/workspace_tree.h"

namespace agentbox {
namespace {

// The names of fd's extended attributes ("" entries dropped).
StatusOr<std::vector<std::string>> XattrNames(int fd) {
  ssize_t size = ::flistxattr(fd, nullptr, 0);
  if (size < 0) {
    if (errno == ENOTSUP || errno == EOPNOTSUPP) return std::vector<std::string>{};
    return ErrnoStatus("list extended attributes");
  }
  std::string buf(static_cast<size_t>(size), '\0');
  size = ::flistxattr(fd, buf.data(), buf.size());
  if (size < 0) return ErrnoStatus("list extended attributes");
  std::vector<std::string> names;
  for (size_t at = 0; at < static_cast<size_t>(size);) {
    std::string name(buf.c_str() + at);
    at += name.size() + 1;
    if (!name.empty()) names.push_back(std::move(name));
  }
  return names;
}

// dst's extended attributes become src's: copied, and those src lacks removed.
Status CopyXattrs(int src, int dst) {
  AB_ASSIGN_OR_RETURN(std::vector<std::string> want, XattrNames(src));
  AB_ASSIGN_OR_RETURN(std::vector<std::string> have, XattrNames(dst));
  for (const std::string& name : have) {
    bool kept = false;
    for (const std::string& w : want) kept = kept || w == name;
    if (!kept && ::fremovexattr(dst, name.c_str()) != 0 && errno != ENODATA) {
      return ErrnoStatus("remove the extended attribute " + name);
    }
  }
  for (const std::string& name : want) {
    ssize_t size = ::fgetxattr(src, name.c_str(), nullptr, 0);
    if (size < 0) continue;  // gone meanwhile
    std::string value(static_cast<size_t>(size), '\0');
    size = ::fgetxattr(src, name.c_str(), value.data(), value.size());
    if (size < 0) continue;
    if (::fsetxattr(dst, name.c_str(), value.data(), static_cast<size_t>(size), 0) != 0 &&
        errno != ENOTSUP && errno != EOPNOTSUPP) {
      return ErrnoStatus("set the extended attribute " + name);
    }
  }
  return OkStatus();
}

// Owner, then mode (a chown clears set-id bits), attributes, then times: fd's metadata as st.
Status CopyMetadata(int src, int dst, const struct stat& st) {
  if (::fchown(dst, st.st_uid, st.st_gid) != 0) return ErrnoStatus("chown");
  if (::fchmod(dst, st.st_mode & 07777) != 0) return ErrnoStatus("chmod");
  AB_RETURN_IF_ERROR(CopyXattrs(src, dst));
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  if (::futimens(dst, times) != 0) return ErrnoStatus("set the times");
  return OkStatus();
}

// The bytes of src into the empty dst: a reflink where the filesystem shares blocks (btrfs,
// xfs), else copy_file_range, else read and write.
Status CopyContent(int src, int dst) {
  if (::ioctl(dst, FICLONE, src) == 0) return OkStatus();
  for (;;) {
    ssize_t n = ::copy_file_range(src, nullptr, dst, nullptr, 1 << 30, 0);
    if (n == 0) return OkStatus();
    if (n > 0) continue;
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != EINVAL && errno != EOPNOTSUPP && errno != ENOSYS) {
      return ErrnoStatus("copy");
    }
    break;
  }
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(src, buf, sizeof(buf));
    if (n == 0) return OkStatus();
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("read");
    }
    for (ssize_t off = 0; off < n;) {
      ssize_t w = ::write(dst, buf + off, static_cast<size_t>(n - off));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return ErrnoStatus("write");
      off += w;
    }
  }
}

class Syncer {
 public:
  Syncer(int dst_root, int64_t racy_after) : dst_root_(dst_root), racy_after_(racy_after) {}

  // Makes dst (a directory) hold what src holds; rel is dst's path from the root ("" or "a/").
  Status Dir(int src, int dst, const std::string& rel) {
    struct stat src_st, dst_st;
    if (::fstat(src, &src_st) != 0 || ::fstat(dst, &dst_st) != 0) return ErrnoStatus("stat");
    AB_ASSIGN_OR_RETURN(std::vector<TreeEntry> want, ReadTreeDir(src));
    AB_ASSIGN_OR_RETURN(std::vector<TreeEntry> have, ReadTreeDir(dst));
    AB_ASSIGN_OR_RETURN(std::vector<const TreeEntry*> kept, RemoveOthers(dst, want, have, rel));
    for (size_t i = 0; i < want.size(); ++i) {
      const TreeEntry& e = want[i];
      Status st = kept[i] ? Keep(src, dst, e, *kept[i], rel, src_st.st_dev, dst_st.st_dev)
                          : Copy(src, dst, e, rel, src_st.st_dev);
      AB_RETURN_IF_ERROR(st.WithContext(rel + e.name));
    }
    return OkStatus();
  }

  SyncStats stats;

 private:
  // Removes what dst has that src does not, or has as something else; for each of src's
  // entries, the one of dst's kept in its place (nullptr: to be copied).
  StatusOr<std::vector<const TreeEntry*>> RemoveOthers(int dst, const std::vector<TreeEntry>& want,
                                                       const std::vector<TreeEntry>& have,
                                                       const std::string& rel) {
    std::vector<const TreeEntry*> kept(want.size(), nullptr);
    size_t w = 0;
    for (const TreeEntry& h : have) {
      while (w < want.size() && want[w].name < h.name) ++w;
      const bool same_name = w < want.size() && want[w].name == h.name;
      if (same_name && (UnchangedSince(want[w].st, h.st, racy_after_) ||
                        (S_ISDIR(want[w].st.st_mode) && S_ISDIR(h.st.st_mode)))) {
        kept[w] = &h;
        continue;
      }
      AB_RETURN_IF_ERROR(RemoveTreeAt(dst, h.name).WithContext(rel + h.name));
      ++stats.removed;
    }
    return kept;
  }

  // An entry dst keeps: a directory is synced within; a file of several names becomes a link
  // to the one already placed for its inode.
  Status Keep(int src, int dst, const TreeEntry& e, const TreeEntry& have, const std::string& rel,
              dev_t src_dev, dev_t dst_dev) {
    if (S_ISDIR(e.st.st_mode)) {
      AB_ASSIGN_OR_RETURN(UniqueFd s, OpenTreeDir(src, e.name, src_dev));
      AB_ASSIGN_OR_RETURN(UniqueFd d, OpenTreeDir(dst, e.name, dst_dev));
      AB_RETURN_IF_ERROR(Dir(s.get(), d.get(), rel + e.name + "/"));
      ++stats.kept;
      return CopyMetadata(s.get(), d.get(), e.st);
    }
    if (S_ISREG(e.st.st_mode) && e.st.st_nlink > 1) {
      auto first = links_.find(e.st.st_ino);
      if (first != links_.end() && first->second.second != have.st.st_ino) {
        if (::unlinkat(dst, e.name.c_str(), 0) != 0) return ErrnoStatus("unlink");
        return Link(dst, e.name, first->second.first);
      }
      links_.emplace(e.st.st_ino, std::make_pair(rel + e.name, have.st.st_ino));
    }
    ++stats.kept;
    return OkStatus();
  }

  Status Copy(int src, int dst, const TreeEntry& e, const std::string& rel, dev_t src_dev) {
    ++stats.copied;
    const mode_t mode = e.st.st_mode;
    if (S_ISDIR(mode)) {
      if (::mkdirat(dst, e.name.c_str(), 0700) != 0) return ErrnoStatus("mkdir");
      AB_ASSIGN_OR_RETURN(UniqueFd s, OpenTreeDir(src, e.name, src_dev));
      struct stat dst_st;
      if (::fstat(dst, &dst_st) != 0) return ErrnoStatus("stat");
      AB_ASSIGN_OR_RETURN(UniqueFd d, OpenTreeDir(dst, e.name, dst_st.st_dev));
      AB_RETURN_IF_ERROR(Dir(s.get(), d.get(), rel + e.name + "/"));
      return CopyMetadata(s.get(), d.get(), e.st);
    }
    if (S_ISREG(mode)) return CopyFile(src, dst, e, rel);
    if (S_ISLNK(mode)) {
      std::string target(PATH_MAX, '\0');
      ssize_t n = ::readlinkat(src, e.name.c_str(), target.data(), target.size());
      if (n < 0) return ErrnoStatus("readlink");
      target.resize(static_cast<size_t>(n));
      if (::symlinkat(target.c_str(), dst, e.name.c_str()) != 0) return ErrnoStatus("symlink");
    } else if (S_ISFIFO(mode)) {
      if (::mkfifoat(dst, e.name.c_str(), 0600) != 0) return ErrnoStatus("mkfifo");
      if (::fchownat(dst, e.name.c_str(), e.st.st_uid, e.st.st_gid, AT_SYMLINK_NOFOLLOW) != 0 ||
          ::fchmodat(dst, e.name.c_str(), mode & 07777, 0) != 0) {
        return ErrnoStatus("set the owner and mode");
      }
    } else {
      --stats.copied;  // a socket or device node: not the sandbox's to have
      return OkStatus();
    }
    if (::fchownat(dst, e.name.c_str(), e.st.st_uid, e.st.st_gid, AT_SYMLINK_NOFOLLOW) != 0) {
      return ErrnoStatus("chown");
    }
    const struct timespec times[2] = {e.st.st_atim, e.st.st_mtim};
    if (::utimensat(dst, e.name.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) {
      return ErrnoStatus("set the times");
    }
    return OkStatus();
  }

  Status CopyFile(int src, int dst, const TreeEntry& e, const std::string& rel) {
    if (e.st.st_nlink > 1) {
      auto first = links_.find(e.st.st_ino);
      if (first != links_.end()) return Link(dst, e.name, first->second.first);
    }
    AB_ASSIGN_OR_RETURN(UniqueFd in, OpenTreeFile(src, e.name));
    UniqueFd out(
        ::openat(dst, e.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!out.valid()) return ErrnoStatus("create");
    AB_RETURN_IF_ERROR(CopyContent(in.get(), out.get()));
    AB_RETURN_IF_ERROR(CopyMetadata(in.get(), out.get(), e.st));
    if (e.st.st_nlink > 1) {
      struct stat made;
      if (::fstat(out.get(), &made) != 0) return ErrnoStatus("stat");
      links_.emplace(e.st.st_ino, std::make_pair(rel + e.name, made.st_ino));
    }
    return OkStatus();
  }

  // Another name for the file already placed at `first` (a path from the root).
  Status Link(int dst, const std::string& name, const std::string& first) {
    if (::linkat(dst_root_, first.c_str(), dst, name.c_str(), 0) != 0) {
      return ErrnoStatus("link to " + first);
    }
    return OkStatus();
  }

  int dst_root_;
  int64_t racy_after_;
  // The source's multiply linked inodes: the path in dst of the first name placed, its inode.
  std::map<ino_t, std::pair<std::string, ino_t>> links_;
};

}  // namespace

StatusOr<SyncStats> SyncTree(int src_fd, int dst_fd, int64_t racy_after_ns) {
  Syncer syncer(dst_fd, racy_after_ns);
  AB_RETURN_IF_ERROR(syncer.Dir(src_fd, dst_fd, ""));
  struct stat st;
  if (::fstat(src_fd, &st) != 0) return ErrnoStatus("stat");
  AB_RETURN_IF_ERROR(CopyMetadata(src_fd, dst_fd, st));
  return syncer.stats;
}

}  // namespace agentbox
