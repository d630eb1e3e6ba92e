#include "proc/tree_diff.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "proc/workspace_tree.h"

namespace agentbox {
namespace {

StatusOr<std::string> LinkTarget(int dirfd, const std::string& name) {
  std::string target(PATH_MAX, '\0');
  ssize_t n = ::readlinkat(dirfd, name.c_str(), target.data(), target.size());
  if (n < 0) return ErrnoStatus("readlink " + name);
  target.resize(static_cast<size_t>(n));
  return target;
}

// Reads up to size bytes (fewer at the end of the file).
StatusOr<size_t> ReadSome(int fd, char* buf, size_t size) {
  for (;;) {
    ssize_t n = ::read(fd, buf, size);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return ErrnoStatus("read");
  }
}

StatusOr<bool> SameBytes(int old_dir, int new_dir, const std::string& name) {
  AB_ASSIGN_OR_RETURN(UniqueFd a, OpenTreeFile(old_dir, name));
  AB_ASSIGN_OR_RETURN(UniqueFd b, OpenTreeFile(new_dir, name));
  static thread_local char buf_a[1 << 16], buf_b[1 << 16];
  for (;;) {
    AB_ASSIGN_OR_RETURN(size_t na, ReadSome(a.get(), buf_a, sizeof(buf_a)));
    AB_ASSIGN_OR_RETURN(size_t nb, ReadSome(b.get(), buf_b, sizeof(buf_b)));
    if (na != nb || std::memcmp(buf_a, buf_b, na) != 0) return false;
    if (na == 0) return true;
  }
}

int64_t FileBytes(const struct stat& st) { return S_ISREG(st.st_mode) ? st.st_size : 0; }

class Differ {
 public:
  Differ(int64_t racy_after, size_t max) : racy_after_(racy_after), max_(max) {}

  Status Dir(int old_dir, int new_dir, const std::string& rel, dev_t old_dev, dev_t new_dev) {
    AB_ASSIGN_OR_RETURN(std::vector<TreeEntry> olds, ReadTreeDir(old_dir));
    AB_ASSIGN_OR_RETURN(std::vector<TreeEntry> news, ReadTreeDir(new_dir));
    size_t i = 0, j = 0;
    while (i < olds.size() || j < news.size()) {
      if (j == news.size() || (i < olds.size() && olds[i].name < news[j].name)) {
        Add(rel + olds[i].name, ChangeKind::kDeleted, olds[i].st.st_mode, -FileBytes(olds[i].st),
            false);
        ++i;
      } else if (i == olds.size() || news[j].name < olds[i].name) {
        Add(rel + news[j].name, ChangeKind::kCreated, news[j].st.st_mode, FileBytes(news[j].st),
            false);
        ++j;
      } else {
        AB_RETURN_IF_ERROR(Both(old_dir, new_dir, olds[i], news[j], rel, old_dev, new_dev));
        ++i;
        ++j;
      }
    }
    return OkStatus();
  }

  TreeDiff diff;

 private:
  Status Both(int old_dir, int new_dir, const TreeEntry& o, const TreeEntry& n,
              const std::string& rel, dev_t old_dev, dev_t new_dev) {
    const std::string path = rel + n.name;
    if (UnchangedSince(o.st, n.st, racy_after_)) {
      if (!S_ISDIR(n.st.st_mode)) return OkStatus();
    }
    const bool same_type = (o.st.st_mode & S_IFMT) == (n.st.st_mode & S_IFMT);
    const bool same_meta = same_type && (o.st.st_mode & 07777) == (n.st.st_mode & 07777) &&
                           o.st.st_uid == n.st.st_uid && o.st.st_gid == n.st.st_gid;
    bool same_content = same_type;
    if (same_type && S_ISREG(n.st.st_mode)) {
      same_content = o.st.st_size == n.st.st_size;
      if (same_content) {
        AB_ASSIGN_OR_RETURN(same_content, SameBytes(old_dir, new_dir, n.name));
      }
    } else if (same_type && S_ISLNK(n.st.st_mode)) {
      AB_ASSIGN_OR_RETURN(std::string a, LinkTarget(old_dir, o.name));
      AB_ASSIGN_OR_RETURN(std::string b, LinkTarget(new_dir, n.name));
      same_content = a == b;
    }
    if (!same_meta || !same_content) {
      Add(path, ChangeKind::kModified, n.st.st_mode, FileBytes(n.st) - FileBytes(o.st),
          !same_content);
    }
    if (same_type && S_ISDIR(n.st.st_mode)) {
      AB_ASSIGN_OR_RETURN(UniqueFd a, OpenTreeDir(old_dir, o.name, old_dev));
      AB_ASSIGN_OR_RETURN(UniqueFd b, OpenTreeDir(new_dir, n.name, new_dev));
      AB_RETURN_IF_ERROR(Dir(a.get(), b.get(), path + "/", old_dev, new_dev));
    }
    return OkStatus();
  }

  void Add(const std::string& path, ChangeKind kind, mode_t mode, int64_t delta, bool content) {
    uint64_t& count = kind == ChangeKind::kCreated   ? diff.created
                      : kind == ChangeKind::kDeleted ? diff.deleted
                                                     : diff.modified;
    ++count;
    if (diff.changes.size() >= max_) {
      diff.truncated = true;
      return;
    }
    diff.changes.push_back(
        {path, kind, TreeTypeName(mode), delta, content || kind != ChangeKind::kModified});
  }

  int64_t racy_after_;
  size_t max_;
};

}  // namespace

StatusOr<TreeDiff> DiffTrees(int old_fd, int new_fd, int64_t racy_after_ns, size_t max_changes) {
  struct stat old_st, new_st;
  if (::fstat(old_fd, &old_st) != 0 || ::fstat(new_fd, &new_st) != 0) return ErrnoStatus("stat");
  Differ differ(racy_after_ns, max_changes);
  AB_RETURN_IF_ERROR(differ.Dir(old_fd, new_fd, "", old_st.st_dev, new_st.st_dev));
  return differ.diff;
}

}  // namespace agentbox
