#include "docker/tar_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "sys/file_util.h"
#include "sys/unique_fd.h"

namespace agentbox::docker {
namespace {

constexpr size_t kChunk = 64 * 1024;

// An archive that was not closed cleanly is failed first: archive_write_free would otherwise
// finish it, writing an end-of-archive to a sink that has already said no.
struct ArchiveFree {
  void operator()(struct archive* a) const {
    archive_write_fail(a);
    archive_write_free(a);
  }
};
struct EntryFree {
  void operator()(struct archive_entry* e) const { archive_entry_free(e); }
};
using EntryPtr = std::unique_ptr<struct archive_entry, EntryFree>;

// libarchive's write callback: hands each block to the sink, keeping the sink's own error.
struct SinkState {
  const TarSink* sink;
  Status error;
};

la_ssize_t WriteToSink(struct archive* a, void* user, const void* data, size_t size) {
  auto* state = static_cast<SinkState*>(user);
  state->error = (*state->sink)(data, size);
  if (state->error.ok()) return static_cast<la_ssize_t>(size);
  archive_set_error(a, EIO, "%s", state->error.message().c_str());
  return -1;
}

class Archiver {
 public:
  Archiver(struct archive* a, SinkState& sink) : a_(a), sink_(sink) {}

  Status AddTree(int dir_fd, const std::string& prefix, dev_t dev) {
    AB_ASSIGN_OR_RETURN(std::vector<std::string> names,
                        ListDir("/proc/self/fd/" + std::to_string(dir_fd)));
    std::sort(names.begin(), names.end());  // deterministic archives
    for (const std::string& name : names) {
      AB_RETURN_IF_ERROR(AddOne(dir_fd, name, prefix + name, dev));
    }
    return OkStatus();
  }

 private:
  Status AddOne(int dir_fd, const std::string& name, const std::string& path, dev_t dev) {
    struct stat st;
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return ErrnoStatus("stat " + path);
    }
    if (S_ISDIR(st.st_mode)) {
      AB_RETURN_IF_ERROR(WriteHeader(path, st, ""));
      if (st.st_dev != dev) return OkStatus();  // a mount point: its contents are not ours
      UniqueFd sub(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!sub.valid()) return ErrnoStatus("open " + path);
      return AddTree(sub.get(), path + "/", dev);
    }
    if (S_ISLNK(st.st_mode)) {
      std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
      ssize_t n = ::readlinkat(dir_fd, name.c_str(), target.data(), target.size());
      if (n < 0) return ErrnoStatus("readlink " + path);
      target.resize(static_cast<size_t>(n));
      return WriteHeader(path, st, "", target);
    }
    if (!S_ISREG(st.st_mode)) return OkStatus();  // sockets, fifos, devices: see the header
    if (st.st_nlink > 1) {
      auto [it, first] = links_.try_emplace(std::make_pair(st.st_dev, st.st_ino), path);
      if (!first) return WriteHeader(path, st, it->second);
    }
    return AddFile(dir_fd, name, path, st);
  }

  // One entry's header; a hard link (`hardlink` set) or a symlink (`symlink` set) has no data.
  Status WriteHeader(const std::string& path, const struct stat& st, const std::string& hardlink,
                     const std::string& symlink = "") {
    EntryPtr entry(archive_entry_new());
    if (!entry) return Internal("tar: out of memory");
    archive_entry_copy_stat(entry.get(), &st);
    archive_entry_copy_pathname(entry.get(), path.c_str());
    if (!hardlink.empty()) {
      archive_entry_copy_hardlink(entry.get(), hardlink.c_str());
      archive_entry_set_size(entry.get(), 0);
    }
    if (!symlink.empty()) archive_entry_copy_symlink(entry.get(), symlink.c_str());
    if (archive_write_header(a_, entry.get()) != ARCHIVE_OK) return Failed("header of " + path);
    return OkStatus();
  }

  Status AddFile(int dir_fd, const std::string& name, const std::string& path,
                 const struct stat& st) {
    UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return ErrnoStatus("open " + path);
    AB_RETURN_IF_ERROR(WriteHeader(path, st, ""));
    std::vector<char> buf(kChunk);
    auto left = static_cast<size_t>(st.st_size);
    while (left > 0) {
      ssize_t n = ::read(fd.get(), buf.data(), std::min(left, buf.size()));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoStatus("read " + path);
      if (n == 0) return Internal("file " + path + " shrank while being archived");
      if (archive_write_data(a_, buf.data(), static_cast<size_t>(n)) != n) {
        return Failed("data of " + path);
      }
      left -= static_cast<size_t>(n);
    }
    return OkStatus();
  }

  // The sink's own error when it caused the failure, else libarchive's message.
  Status Failed(const std::string& what) {
    if (!sink_.error.ok()) return sink_.error;
    const char* why = archive_error_string(a_);
    return Internal("tar: " + what + ": " + (why ? why : "libarchive failed"));
  }

  struct archive* a_;
  SinkState& sink_;
  std::map<std::pair<dev_t, ino_t>, std::string> links_;
};

}  // namespace

Status WriteTarOfDirectory(const std::string& dir, const TarSink& sink) {
  UniqueFd root(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return ErrnoStatus("rootfs " + dir);
  struct stat st;
  if (::fstat(root.get(), &st) != 0) return ErrnoStatus("stat " + dir);
  SinkState state{&sink, OkStatus()};  // outlives the archive, whose callback it is
  std::unique_ptr<struct archive, ArchiveFree> a(archive_write_new());
  if (!a) return Internal("tar: out of memory");
  // pax "restricted": plain ustar headers, a pax extension only for what ustar cannot hold.
  if (archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_open2(a.get(), &state, nullptr, &WriteToSink, nullptr, nullptr) != ARCHIVE_OK) {
    return Internal(std::string("tar: ") + archive_error_string(a.get()));
  }
  Archiver archiver(a.get(), state);
  AB_RETURN_IF_ERROR(archiver.AddTree(root.get(), "", st.st_dev));
  if (archive_write_close(a.get()) != ARCHIVE_OK) {
    if (!state.error.ok()) return state.error;
    return Internal(std::string("tar: end of archive: ") + archive_error_string(a.get()));
  }
  return OkStatus();
}

}  // namespace agentbox::docker
