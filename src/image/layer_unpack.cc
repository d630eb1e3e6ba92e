#include "image/layer_unpack.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "image/tar_stream.h"
#include "spec/sandbox_spec.h"
#include "sys/unique_fd.h"

namespace agentbox::image {
namespace {

constexpr const char* kOpaqueXattr = "trusted.overlay.opaque";
constexpr std::string_view kWhiteoutPrefix = ".wh.";
constexpr std::string_view kOpaqueMarker = ".wh..wh..opq";
constexpr size_t kMaxPathBytes = 4096;
constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

using Components = std::vector<std::string>;

StatusOr<Components> SplitPath(const char* raw) {
  if (raw == nullptr) return InvalidArgument("an entry without a name");
  std::string_view p(raw);
  if (p.size() > kMaxPathBytes) return InvalidArgument("a path longer than 4096 bytes");
  Components out;
  for (size_t start = 0; start <= p.size();) {
    size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    std::string_view c = p.substr(start, end - start);
    if (c == "..") {
      return InvalidArgument("\"" + std::string(p) + "\" climbs out of the layer (a .. component)");
    }
    if (!c.empty() && c != ".") out.emplace_back(c);
    start = end + 1;
  }
  return out;
}

std::string Join(const Components& c, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += (i ? "/" : "") + c[i];
  return s;
}

bool IsWhiteoutNode(const struct stat& st) {
  return S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0);
}

Status Refuse(const std::string& path, const std::string& why) {
  return InvalidArgument("\"" + path + "\": " + why);
}

class Unpacker {
 public:
  Unpacker(int root_fd, const UnpackLimits& limits) : root_fd_(root_fd), limits_(limits) {
    umask_ = ::umask(0);  // read it (there is no other way), and put it back
    ::umask(umask_);
  }

  Status Apply(struct archive_entry* e, TarStream& tar);
  const UnpackedLayer& stats() const { return stats_; }

 private:
  StatusOr<UniqueFd> Walk(const Components& c, size_t n, bool create);
  StatusOr<int> Parent(const Components& c);
  Status RemoveExisting(int dir, const std::string& name, const std::string& shown);
  Status MakeDirectory(int dir, const std::string& name, struct archive_entry* e);
  Status WriteRegular(int dir, const std::string& name, struct archive_entry* e, TarStream& tar);
  Status ApplyWhiteout(int dir, const std::string& name, const std::string& shown);
  Status Link(int dir, const std::string& name, const char* target, const std::string& shown);
  Status Own(int dir, const std::string& name, struct archive_entry* e);

  int root_fd_;
  mode_t umask_ = 0;
  UnpackLimits limits_;
  UnpackedLayer stats_;
  uint64_t declared_bytes_ = 0;
  std::string cached_key_;
  UniqueFd cached_fd_;
};

// Opens components [0, n) beneath the root, one at a time, never through a symlink. `create`
// makes missing directories (a tar need not list parents), root-owned inside, 0755.
StatusOr<UniqueFd> Unpacker::Walk(const Components& c, size_t n, bool create) {
  UniqueFd cur(::fcntl(root_fd_, F_DUPFD_CLOEXEC, 0));
  for (size_t i = 0; i < n; ++i) {
    UniqueFd next(::openat(cur.get(), c[i].c_str(), kDirFlags));
    if (!next.valid() && errno == ENOENT && create) {
      if (::mkdirat(cur.get(), c[i].c_str(), 0755) != 0 ||
          ::fchownat(cur.get(), c[i].c_str(), kSandboxHostRootId, kSandboxHostRootId,
                     AT_SYMLINK_NOFOLLOW) != 0) {
        return ErrnoStatus("create directory " + Join(c, i + 1));
      }
      next.reset(::openat(cur.get(), c[i].c_str(), kDirFlags));
    }
    if (!next.valid()) {
      if (errno == ELOOP || errno == ENOTDIR) {
        return Refuse(Join(c, c.size()),
                      "lies beneath " + Join(c, i + 1) + ", which is a symlink or not a directory");
      }
      return ErrnoStatus("open " + Join(c, i + 1));
    }
    cur = std::move(next);
  }
  return cur;
}

StatusOr<int> Unpacker::Parent(const Components& c) {
  if (c.size() == 1) return root_fd_;
  std::string key = Join(c, c.size() - 1);
  if (key != cached_key_ || !cached_fd_.valid()) {
    cached_key_.clear();
    AB_ASSIGN_OR_RETURN(cached_fd_, Walk(c, c.size() - 1, true));
    cached_key_ = key;
  }
  return cached_fd_.get();
}

// A later entry replaces an earlier one of the same name (tar's rule); a directory is kept for
// a directory entry and refused for anything else.
Status Unpacker::RemoveExisting(int dir, const std::string& name, const std::string& shown) {
  struct stat st;
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? OkStatus() : ErrnoStatus("stat " + shown);
  }
  if (S_ISDIR(st.st_mode)) return Refuse(shown, "replaces a directory of the same layer");
  if (::unlinkat(dir, name.c_str(), 0) != 0) return ErrnoStatus("replace " + shown);
  return OkStatus();
}

Status Unpacker::Own(int dir, const std::string& name, struct archive_entry* e) {
  uint32_t uid = HostIdForImageId(static_cast<uint64_t>(archive_entry_uid(e)));
  uint32_t gid = HostIdForImageId(static_cast<uint64_t>(archive_entry_gid(e)));
  if (::fchownat(dir, name.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) {
    return ErrnoStatus("chown " + name);
  }
  struct timespec times[2] = {{0, UTIME_OMIT},
                              {archive_entry_mtime(e), archive_entry_mtime_nsec(e)}};
  (void)::utimensat(dir, name.c_str(), times, AT_SYMLINK_NOFOLLOW);
  return OkStatus();
}

Status Unpacker::MakeDirectory(int dir, const std::string& name, struct archive_entry* e) {
  bool opaque = false;
  if (::mkdirat(dir, name.c_str(), 0700) != 0) {
    struct stat st;
    if (errno != EEXIST || ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return ErrnoStatus("mkdir " + name);
    }
    if (!S_ISDIR(st.st_mode)) {
      // A whiteout of this layer replaced by a directory: it still hides what is below.
      opaque = IsWhiteoutNode(st);
      if (::unlinkat(dir, name.c_str(), 0) != 0 || ::mkdirat(dir, name.c_str(), 0700) != 0) {
        return ErrnoStatus("replace " + name);
      }
    }
  }
  UniqueFd fd(::openat(dir, name.c_str(), kDirFlags));
  if (!fd.valid()) return ErrnoStatus("open " + name);
  if (opaque && ::fsetxattr(fd.get(), kOpaqueXattr, "y", 1, 0) != 0) {
    return ErrnoStatus("mark " + name + " opaque");
  }
  if (::fchmod(fd.get(), archive_entry_perm(e) & 01777) != 0) return ErrnoStatus("chmod " + name);
  return Own(dir, name, e);
}

Status Unpacker::WriteRegular(int dir, const std::string& name, struct archive_entry* e,
                              TarStream& tar) {
  // Made with its final mode, owner and time set through the fd: every metadata call saved
  // counts, since creating files is what unpacking mostly waits for (ext4's journal).
  const mode_t perm = archive_entry_perm(e);
  const mode_t mode = perm & 01777;  // no setuid, no setgid
  if (perm & (S_ISUID | S_ISGID)) ++stats_.setid_dropped;
  UniqueFd fd(
      ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd.valid()) return ErrnoStatus("create " + name);
  la_int64_t end = 0;
  for (;;) {
    const void* buf = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int r = archive_read_data_block(tar.tar(), &buf, &size, &offset);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) return tar.Error("reading " + name);
    const char* p = static_cast<const char*>(buf);
    while (size > 0) {
      ssize_t n = ::pwrite(fd.get(), p, size, offset);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return ErrnoStatus("write " + name);
      p += n;
      size -= static_cast<size_t>(n);
      offset += n;
    }
    end = std::max(end, offset);
  }
  // A sparse file's hole at its end has no block to write.
  if (end < archive_entry_size(e) && ::ftruncate(fd.get(), archive_entry_size(e)) != 0) {
    return ErrnoStatus("write " + name);
  }
  // The umask took bits off the mode asked for at creation.
  if ((mode & umask_) != 0 && ::fchmod(fd.get(), mode) != 0) return ErrnoStatus("chmod " + name);
  uint32_t uid = HostIdForImageId(static_cast<uint64_t>(archive_entry_uid(e)));
  uint32_t gid = HostIdForImageId(static_cast<uint64_t>(archive_entry_gid(e)));
  struct timespec times[2] = {{0, UTIME_OMIT},
                              {archive_entry_mtime(e), archive_entry_mtime_nsec(e)}};
  if (::fchown(fd.get(), uid, gid) != 0) return ErrnoStatus("chown " + name);
  (void)::futimens(fd.get(), times);
  return OkStatus();
}

Status Unpacker::ApplyWhiteout(int dir, const std::string& name, const std::string& shown) {
  if (name == kOpaqueMarker) {
    if (::fsetxattr(dir, kOpaqueXattr, "y", 1, 0) != 0) {
      return ErrnoStatus("mark the directory of " + shown + " opaque (trusted xattrs)");
    }
    return OkStatus();
  }
  std::string hidden = name.substr(kWhiteoutPrefix.size());
  if (hidden.empty() || hidden == "." || hidden == "..") return Refuse(shown, "a bad whiteout");
  AB_RETURN_IF_ERROR(RemoveExisting(dir, hidden, shown));
  if (::mknodat(dir, hidden.c_str(), S_IFCHR | 0, makedev(0, 0)) != 0 ||
      ::fchownat(dir, hidden.c_str(), kSandboxHostRootId, kSandboxHostRootId,
                 AT_SYMLINK_NOFOLLOW) != 0) {
    return ErrnoStatus("make the whiteout " + shown);
  }
  return OkStatus();
}

Status Unpacker::Link(int dir, const std::string& name, const char* target,
                      const std::string& shown) {
  AB_ASSIGN_OR_RETURN(Components t, SplitPath(target));
  if (t.empty()) return Refuse(shown, "a hard link to the layer's root");
  AB_ASSIGN_OR_RETURN(UniqueFd tdir, Walk(t, t.size() - 1, false));
  AB_RETURN_IF_ERROR(RemoveExisting(dir, name, shown));
  if (::linkat(tdir.get(), t.back().c_str(), dir, name.c_str(), 0) != 0) {
    if (errno == ENOENT) return Refuse(shown, "a hard link to a file not in the layer");
    return ErrnoStatus("link " + shown);
  }
  return OkStatus();
}

Status Unpacker::Apply(struct archive_entry* e, TarStream& tar) {
  AB_ASSIGN_OR_RETURN(Components c, SplitPath(archive_entry_pathname(e)));
  if (++stats_.entries > limits_.max_entries) {
    return ResourceExhausted("more than " + std::to_string(limits_.max_entries) +
                             " entries (the entry ceiling, --max-layer-entries)");
  }
  if (c.empty()) return OkStatus();  // the layer's root itself
  const std::string shown = Join(c, c.size());
  const std::string& name = c.back();
  AB_ASSIGN_OR_RETURN(int dir, Parent(c));
  if (name.rfind(kWhiteoutPrefix, 0) == 0) return ApplyWhiteout(dir, name, shown);
  if (const char* target = archive_entry_hardlink(e)) return Link(dir, name, target, shown);
  switch (archive_entry_filetype(e)) {
    case AE_IFDIR:
      return MakeDirectory(dir, name, e);
    case AE_IFREG:
      declared_bytes_ += static_cast<uint64_t>(archive_entry_size(e));
      if (declared_bytes_ > limits_.max_bytes) {
        return ResourceExhausted(shown + ": files larger than " +
                                 std::to_string(limits_.max_bytes) +
                                 " bytes in all (the layer size ceiling, --max-layer-size)");
      }
      AB_RETURN_IF_ERROR(RemoveExisting(dir, name, shown));
      return WriteRegular(dir, name, e, tar);
    case AE_IFLNK: {
      const char* target = archive_entry_symlink(e);
      if (target == nullptr || std::string_view(target).size() >= kMaxPathBytes) {
        return Refuse(shown, "a symlink without a usable target");
      }
      AB_RETURN_IF_ERROR(RemoveExisting(dir, name, shown));
      if (::symlinkat(target, dir, name.c_str()) != 0) return ErrnoStatus("symlink " + shown);
      return Own(dir, name, e);
    }
    case AE_IFIFO:
      AB_RETURN_IF_ERROR(RemoveExisting(dir, name, shown));
      if (::mknodat(dir, name.c_str(), S_IFIFO | (archive_entry_perm(e) & 0777), 0) != 0) {
        return ErrnoStatus("mkfifo " + shown);
      }
      return Own(dir, name, e);
    case AE_IFCHR:
    case AE_IFBLK:
      return Refuse(shown,
                    "a device node (a sandbox's /dev is made by agentbox, never by an image)");
    case AE_IFSOCK:
      return OkStatus();  // a socket in a tar means nothing
    default:
      return Refuse(shown, "an entry of unknown type");
  }
}

}  // namespace

uint32_t HostIdForImageId(uint64_t id) {
  return kSandboxHostRootId + static_cast<uint32_t>(id < 65536 ? id : 65534);
}

StatusOr<UnpackedLayer> UnpackLayer(int blob_fd, const std::string& dest_dir,
                                    const UnpackLimits& limits) {
  UniqueFd root(::open(dest_dir.c_str(), kDirFlags));
  if (!root.valid()) return ErrnoStatus("open " + dest_dir);
  if (::fchown(root.get(), kSandboxHostRootId, kSandboxHostRootId) != 0 ||
      ::fchmod(root.get(), 0755) != 0) {
    return ErrnoStatus("prepare " + dest_dir);
  }
  AB_ASSIGN_OR_RETURN(auto tar, TarStream::Open(blob_fd, limits.max_bytes));
  Unpacker unpacker(root.get(), limits);
  for (;;) {
    AB_ASSIGN_OR_RETURN(struct archive_entry * e, tar->Next());
    if (e == nullptr) break;
    AB_RETURN_IF_ERROR(unpacker.Apply(e, *tar));
  }
  UnpackedLayer out = unpacker.stats();
  AB_ASSIGN_OR_RETURN(out.diff_id, tar->Finish());
  out.bytes = tar->bytes();
  // One flush of the whole filesystem rather than an fsync per file: the layer is renamed into
  // the store only after this, so a crash or a full disk never leaves a layer that looks whole.
  if (::syncfs(root.get()) != 0) return ErrnoStatus("sync " + dest_dir);
  return out;
}

}  // namespace agentbox::image
