#include "agent/beneath_walk.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "sys/unique_fd.h"

namespace agentbox {
namespace {

constexpr int kMaxSymlinks = 40;  // the kernel's MAXSYMLINKS
constexpr uint64_t kUnderstoodResolve =
    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
// The flags openat2 accepts beside O_PATH (any other is EINVAL there).
constexpr uint64_t kPathFlags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
// OpenLast() followed a symlink: its target's components are now pending.
constexpr int kFollowed = -2;

int Fail(int err) {
  errno = err;
  return -1;
}

struct FileId {
  dev_t dev;
  ino_t ino;
  bool operator==(const FileId&) const = default;
};

FileId IdOf(const struct stat& st) { return FileId{st.st_dev, st.st_ino}; }

// The arguments openat2 itself refuses with EINVAL, so both resolvers answer alike.
bool ValidArguments(uint64_t flags, uint64_t mode, uint64_t resolve) {
  if ((resolve & RESOLVE_BENEATH) == 0 || (resolve & ~kUnderstoodResolve) != 0) return false;
  if ((flags & O_PATH) != 0 && (flags & ~kPathFlags) != 0) return false;
  bool creates = (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
  return creates ? (mode & ~07777ull) == 0 : mode == 0;
}

class Walk {
 public:
  Walk(int root_fd, uint64_t flags, uint64_t mode, uint64_t resolve)
      : root_fd_(root_fd), flags_(flags | O_CLOEXEC), mode_(mode), resolve_(resolve) {}

  int Run(std::string_view rel) {
    if (rel.empty()) return Fail(ENOENT);
    if (rel.size() >= PATH_MAX) return Fail(ENAMETOOLONG);
    if (rel.front() == '/') return Fail(EXDEV);
    must_be_dir_ = rel.back() == '/';
    Push(rel);
    while (!pending_.empty()) {
      std::string name = std::move(pending_.back());
      pending_.pop_back();
      int rc = 0;
      if (name == "..") {
        rc = Up();
      } else if (name == "." || !pending_.empty()) {
        rc = name == "." ? 0 : Step(name);
      } else {
        rc = OpenLast(name);
        if (rc >= 0) return rc;
        if (rc == kFollowed) continue;
      }
      if (rc < 0) return -1;
    }
    // The path ended on ".", ".." or a symlink to one: the current directory is the answer.
    return ::openat(Current(), ".", static_cast<int>(flags_), static_cast<mode_t>(mode_));
  }

 private:
  int Current() const { return current_.valid() ? current_.get() : root_fd_; }

  // Queues the components of `path`, the next one at the back.
  void Push(std::string_view path) {
    size_t end = path.size();
    while (end > 0) {
      size_t slash = path.rfind('/', end - 1);
      size_t start = slash == std::string_view::npos ? 0 : slash + 1;
      if (end > start) pending_.emplace_back(path.substr(start, end - start));
      if (slash == std::string_view::npos) break;
      end = slash;
    }
  }

  // A directory on the way: entered when it is one, followed when it is a symlink.
  int Step(const std::string& name) {
    UniqueFd fd(::openat(Current(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat st;
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) return -1;
    if (S_ISLNK(st.st_mode)) return Follow(fd.get());
    if (!S_ISDIR(st.st_mode)) return Fail(ENOTDIR);
    entered_.push_back(IdOf(st));
    current_ = std::move(fd);
    return 0;
  }

  // `..`: back to the directory the walk came from, never above the root fd.
  int Up() {
    if (entered_.empty()) return Fail(EXDEV);
    entered_.pop_back();
    if (entered_.empty()) {
      current_.reset();
      return 0;
    }
    UniqueFd parent(::openat(Current(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
    struct stat st;
    if (!parent.valid() || ::fstat(parent.get(), &st) != 0) return -1;
    // Not the directory we came through: a rename moved us meanwhile. openat2 says EAGAIN too.
    if (!(IdOf(st) == entered_.back())) return Fail(EAGAIN);
    current_ = std::move(parent);
    return 0;
  }

  // Queues the target of the symlink link_fd (an O_PATH | O_NOFOLLOW fd), to be walked from the
  // directory holding it.
  int Follow(int link_fd) {
    if ((resolve_ & RESOLVE_NO_SYMLINKS) != 0 || ++links_ > kMaxSymlinks) return Fail(ELOOP);
    struct statfs fs;
    if (::fstatfs(link_fd, &fs) != 0) return -1;
    if (fs.f_type == PROC_SUPER_MAGIC) return Fail(ELOOP);
    char target[PATH_MAX];
    ssize_t n = ::readlinkat(link_fd, "", target, sizeof(target));
    if (n < 0) return -1;
    if (n == 0) return Fail(ENOENT);
    if (static_cast<size_t>(n) >= sizeof(target)) return Fail(ENAMETOOLONG);
    std::string_view text(target, static_cast<size_t>(n));
    if (text.front() == '/') return Fail(EXDEV);
    if (pending_.empty() && text.back() == '/') must_be_dir_ = true;  // the link was the last
    Push(text);
    return 0;
  }

  // The last component: returns the fd, kFollowed, or -1 with errno.
  int OpenLast(const std::string& name) {
    const bool path_only = (flags_ & O_PATH) != 0;
    const bool creates = !path_only && (flags_ & O_CREAT) != 0;
    const bool exclusive = creates && (flags_ & O_EXCL) != 0;
    if (must_be_dir_ && creates) return Fail(EISDIR);
    UniqueFd probe(::openat(Current(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!probe.valid()) return errno == ENOENT && creates ? Create(name) : -1;
    struct stat st;
    if (::fstat(probe.get(), &st) != 0) return -1;
    if (!S_ISLNK(st.st_mode)) return OpenProbed(name, IdOf(st));
    // A trailing slash follows the link whatever O_NOFOLLOW says; O_EXCL never follows.
    if (must_be_dir_ || ((flags_ & O_NOFOLLOW) == 0 && !exclusive)) {
      return Follow(probe.get()) == 0 ? kFollowed : -1;
    }
    // The link itself, as the kernel answers for it.
    if (path_only) return (flags_ & O_DIRECTORY) != 0 ? Fail(ENOTDIR) : probe.release();
    if (exclusive) return Fail(EEXIST);
    return Fail((flags_ & O_DIRECTORY) != 0 ? ENOTDIR : ELOOP);
  }

  // Opens the entry the probe found (not a symlink), and checks it is still that one.
  int OpenProbed(const std::string& name, FileId probed) {
    uint64_t flags = flags_ | O_NOFOLLOW | (must_be_dir_ ? O_DIRECTORY : 0);
    UniqueFd fd(
        ::openat(Current(), name.c_str(), static_cast<int>(flags), static_cast<mode_t>(mode_)));
    if (!fd.valid()) return errno == ELOOP ? Fail(EAGAIN) : -1;  // became a symlink meanwhile
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return -1;
    return IdOf(st) == probed ? fd.release() : Fail(EAGAIN);
  }

  // O_CREAT of a name the probe did not find; checks the fd is the entry now in the directory.
  int Create(const std::string& name) {
    UniqueFd fd(::openat(Current(), name.c_str(), static_cast<int>(flags_ | O_NOFOLLOW),
                         static_cast<mode_t>(mode_)));
    if (!fd.valid()) return errno == ELOOP ? Fail(EAGAIN) : -1;  // a symlink appeared: retry
    struct stat made, entry;
    if (::fstat(fd.get(), &made) != 0) return -1;
    if (::fstatat(Current(), name.c_str(), &entry, AT_SYMLINK_NOFOLLOW) != 0) return -1;
    return IdOf(made) == IdOf(entry) ? fd.release() : Fail(EAGAIN);
  }

  const int root_fd_;
  const uint64_t flags_, mode_, resolve_;
  UniqueFd current_;                  // the directory reached; invalid: the root fd itself
  std::vector<FileId> entered_;       // the directories entered below the root, in order
  std::vector<std::string> pending_;  // the components left, the next one at the back
  bool must_be_dir_ = false;          // a trailing slash: the result must be a directory
  int links_ = 0;                     // symlinks followed so far
};

}  // namespace

int WalkBeneath(int root_fd, std::string_view rel, uint64_t flags, uint64_t mode,
                uint64_t resolve) {
  if (!ValidArguments(flags, mode, resolve)) return Fail(EINVAL);
  return Walk(root_fd, flags, mode, resolve).Run(rel);
}

}  // namespace agentbox
