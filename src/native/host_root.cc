#include "native/host_root.h"

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "policy/host_paths.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// lstat-based: a symlink stays a symlink in the sandbox (merged /usr: /bin -> usr/bin).
bool DescribeEntry(const std::string& dir, const std::string& name, RootEntry& entry) {
  std::string path = (dir == "/" ? "" : dir) + "/" + name;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return false;
  entry.name = name;
  if (S_ISLNK(st.st_mode)) {
    char buf[PATH_MAX];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf) - 1);
    if (n < 0) return false;
    entry.type = RootEntry::Type::kSymlink;
    entry.link_text.assign(buf, static_cast<size_t>(n));
    return true;
  }
  if (S_ISDIR(st.st_mode)) {
    entry.type = RootEntry::Type::kDirectory;
    return true;
  }
  entry.type = RootEntry::Type::kFile;
  return S_ISREG(st.st_mode);
}

StatusOr<std::vector<RootEntry>> ListCustomRoot(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return ErrnoStatus("--rootfs " + dir);
  std::vector<RootEntry> entries;
  while (struct dirent* de = ::readdir(d)) {
    std::string name = de->d_name;
    if (name == "." || name == "..") continue;
    RootEntry entry;
    if (DescribeEntry(dir, name, entry)) entries.push_back(entry);
  }
  ::closedir(d);
  return entries;
}

}  // namespace

StatusOr<MountPlanInput> DescribeRoot(const SandboxSpec& spec, const std::string& state_root) {
  MountPlanInput in;
  in.tmp_bytes = spec.tmp_bytes;
  in.shm_bytes = spec.shm_bytes;
  if (spec.image_given) {
    if (spec.rootfs) return InvalidArgument("--rootfs and --image are two roots: give one");
    in.image_root = true;  // native/image_root.h mounts it
    in.custom_rootfs = true;
    return in;
  }
  if (spec.rootfs) {
    char resolved[PATH_MAX];
    if (::realpath(spec.rootfs->c_str(), resolved) == nullptr) {
      return ErrnoStatus("--rootfs " + *spec.rootfs);
    }
    struct stat st;
    if (::stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode)) {
      return InvalidArgument("--rootfs " + *spec.rootfs + " is not a directory");
    }
    if (std::string(resolved) == "/") {
      return InvalidArgument("--rootfs /: the host's whole root is never a sandbox root");
    }
    char state[PATH_MAX];
    const std::string state_resolved =
        ::realpath(state_root.c_str(), state) != nullptr ? std::string(state) : state_root;
    AB_RETURN_IF_ERROR(CheckStateDirApart("--rootfs", resolved, state_resolved));
    in.root_source = resolved;
    in.custom_rootfs = true;
    AB_ASSIGN_OR_RETURN(in.root_entries, ListCustomRoot(in.root_source));
    return in;
  }
  in.root_source = "/";
  for (const std::string& name : DefaultRootAllowlist()) {
    RootEntry entry;
    if (DescribeEntry("/", name, entry)) in.root_entries.push_back(entry);
  }
  for (const std::string& name : DefaultEtcAllowlist()) {
    if (::access(("/etc/" + name).c_str(), F_OK) == 0) in.host_etc_entries.push_back(name);
  }
  return in;
}

}  // namespace agentbox
