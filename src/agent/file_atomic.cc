#include "agent/file_atomic.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <utility>

namespace agentbox {
namespace {

// The temp name does not derive from the target's name, so a 255-byte target name still fits.
std::string TempName() {
  unsigned long long random = 0;
  if (::getrandom(&random, sizeof(random), GRND_NONBLOCK) != sizeof(random)) {
    random = static_cast<unsigned long long>(::getpid()) * 2654435761u ^
             static_cast<unsigned long long>(::time(nullptr));
  }
  char buf[48];
  std::snprintf(buf, sizeof(buf), ".agentbox-tmp-%016llx", random);
  return buf;
}

// One component, O_EXCL and RESOLVE_NO_SYMLINKS: the temp file is always a new regular file in
// parent_fd, whatever the sandbox put there.
int CreateExclusive(int parent_fd, const std::string& name) {
  return OpenAt2Beneath(parent_fd, name, O_WRONLY | O_CREAT | O_EXCL, 0600,
                        RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

}  // namespace

StatusOr<AtomicFile> AtomicFile::Create(int parent_fd, std::string name, mode_t mode,
                                        WorkspacePath for_errors) {
  UniqueFd parent(::fcntl(parent_fd, F_DUPFD_CLOEXEC, 0));
  if (!parent.valid()) return PathError(for_errors, "dup parent of", errno);
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string temp_name = TempName();
    int fd = CreateExclusive(parent.get(), temp_name);
    if (fd >= 0) {
      return AtomicFile(std::move(parent), UniqueFd(fd), std::move(name), std::move(temp_name),
                        mode, std::move(for_errors));
    }
    if (errno != EEXIST) return PathError(for_errors, "create temp file for", errno);
  }
  return Internal("no free temp file name beside \"" + for_errors.given + "\"");
}

AtomicFile::AtomicFile(UniqueFd parent, UniqueFd file, std::string name, std::string temp_name,
                       mode_t mode, WorkspacePath for_errors)
    : parent_(std::move(parent)),
      file_(std::move(file)),
      name_(std::move(name)),
      temp_name_(std::move(temp_name)),
      mode_(mode),
      for_errors_(std::move(for_errors)) {}

AtomicFile::~AtomicFile() {
  if (!temp_name_.empty() && parent_.valid()) ::unlinkat(parent_.get(), temp_name_.c_str(), 0);
}

Status AtomicFile::Write(std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(file_.get(), data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return PathError(for_errors_, "write", errno);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

Status AtomicFile::Commit() {
  // fchmod, not the create mode: the result must not depend on the agent's umask.
  if (::fchmod(file_.get(), mode_) != 0) return PathError(for_errors_, "chmod", errno);
  // Delayed write errors (NFS, quota) surface at close.
  if (::close(file_.release()) != 0) return PathError(for_errors_, "write", errno);
  // No fsync: atomicity against concurrent readers is the promise, durability across a host
  // crash is not, and an fsync per written file would dominate an agent's edit loop.
  if (::renameat(parent_.get(), temp_name_.c_str(), parent_.get(), name_.c_str()) != 0) {
    return PathError(for_errors_, "rename over", errno);
  }
  temp_name_.clear();
  return OkStatus();
}

}  // namespace agentbox
