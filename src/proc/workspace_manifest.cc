#include "proc/workspace_manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// Deeper trees are recorded down to here: each level holds one fd while its children are walked.
constexpr int kMaxDepth = 128;

EntryType TypeOf(mode_t mode) {
  if (S_ISREG(mode)) return EntryType::kFile;
  if (S_ISDIR(mode)) return EntryType::kDir;
  if (S_ISLNK(mode)) return EntryType::kSymlink;
  return EntryType::kOther;
}

int64_t Nanos(const struct timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// The names in a directory, through a duplicate of its fd (closedir closes only that).
bool ReadNames(int dir_fd, std::vector<std::string>* names) {
  int fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return false;
  DIR* stream = ::fdopendir(fd);
  if (!stream) {
    ::close(fd);
    return false;
  }
  while (struct dirent* e = ::readdir(stream)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names->emplace_back(e->d_name);
  }
  ::closedir(stream);
  return true;
}

class Walker {
 public:
  Walker(dev_t dev, size_t max_entries, WorkspaceManifest& out)
      : dev_(dev), max_(max_entries), out_(out) {}

  void Walk(const UniqueFd& dir, const std::string& prefix, int depth) {
    std::vector<std::string> names;
    if (!ReadNames(dir.get(), &names)) {
      Note("a directory could not be read: " + prefix);
      return;
    }
    std::sort(names.begin(), names.end());  // siblings: byte order is PathBefore's order
    for (const std::string& name : names) {
      if (out_.entries.size() >= max_) {
        out_.complete = false;
        out_.note = "the workspace has more than " + std::to_string(max_) +
                    " entries: changes past the first " + std::to_string(max_) +
                    " (in path order) are not counted";
        return;
      }
      Visit(dir.get(), name, prefix, depth);
      if (!out_.complete) return;
    }
  }

 private:
  void Visit(int dir_fd, const std::string& name, const std::string& prefix, int depth) {
    struct stat st;
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;  // gone meanwhile
    std::string path = prefix + name;
    out_.entries.push_back({path, TypeOf(st.st_mode), static_cast<uint64_t>(st.st_ino),
                            static_cast<uint64_t>(st.st_size), Nanos(st.st_mtim),
                            Nanos(st.st_ctim)});
    if (!S_ISDIR(st.st_mode) || st.st_dev != dev_) return;  // another mount: an entry only
    if (depth >= kMaxDepth) {
      Note("directories deeper than " + std::to_string(kMaxDepth) + " levels are not walked");
      return;
    }
    UniqueFd child(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!child.valid()) {
      Note("a directory could not be read: " + path);
      return;
    }
    Walk(child, path + "/", depth + 1);
  }

  void Note(const std::string& note) {
    if (out_.note.empty()) out_.note = note;
  }

  dev_t dev_;
  size_t max_;
  WorkspaceManifest& out_;
};

}  // namespace

StatusOr<WorkspaceManifest> TakeManifest(const std::string& dir, size_t max_entries) {
  UniqueFd root(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return ErrnoStatus("open " + dir + " to list its changes");
  struct stat st;
  if (::fstat(root.get(), &st) != 0) return ErrnoStatus("stat " + dir);
  WorkspaceManifest manifest;
  Walker(st.st_dev, max_entries, manifest).Walk(root, "", 0);
  return manifest;
}

WorkspaceChanges ChangesSince(const StatusOr<WorkspaceManifest>& before, const std::string& dir) {
  auto after = TakeManifest(dir);
  if (!before.ok() || !after.ok()) {
    WorkspaceChanges unknown;
    unknown.reason = (before.ok() ? after.status() : before.status()).message();
    return unknown;
  }
  return DiffManifests(*before, *after);
}

}  // namespace agentbox
