#include "core/sandbox_activity.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <string>

namespace agentbox {
namespace {

std::string ActivityPath(const SandboxRecord& record) { return record.state_dir + "/active"; }

UniqueFd OpenActivity(const SandboxRecord& record) {
  return UniqueFd(
      ::open(ActivityPath(record).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
}

bool Lock(int fd, int how) {
  while (::flock(fd, how) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

}  // namespace

void MarkActive(const SandboxRecord& record) {
  UniqueFd fd = OpenActivity(record);
  if (fd.valid()) ::futimens(fd.get(), nullptr);
}

ActivityHold::ActivityHold(const SandboxRecord& record) : fd_(OpenActivity(record)) {
  if (!fd_.valid()) return;
  // Waits while an idle removal holds it exclusively; the caller then finds the record gone.
  if (!Lock(fd_.get(), LOCK_SH)) {
    fd_.reset();
    return;
  }
  ::futimens(fd_.get(), nullptr);
}

ActivityHold::~ActivityHold() {
  if (fd_.valid()) ::futimens(fd_.get(), nullptr);  // the lock goes with the fd
}

UniqueFd TakeExclusiveUse(const SandboxRecord& record) {
  UniqueFd fd = OpenActivity(record);
  if (!fd.valid() || !Lock(fd.get(), LOCK_EX | LOCK_NB)) return UniqueFd();
  ::futimens(fd.get(), nullptr);
  return fd;
}

std::optional<int64_t> LastActive(const SandboxRecord& record) {
  struct stat st;
  if (::stat(ActivityPath(record).c_str(), &st) != 0) return std::nullopt;
  return static_cast<int64_t>(st.st_mtim.tv_sec);
}

bool IdleTimeoutEnded(const SandboxRecord& record, int64_t now) {
  if (record.spec.idle_timeout_seconds == 0) return false;
  std::optional<int64_t> last = LastActive(record);
  if (!last) return false;
  return now >= *last + static_cast<int64_t>(std::ceil(record.spec.idle_timeout_seconds));
}

UniqueFd ClaimIdle(const SandboxRecord& record, int64_t now) {
  if (!IdleTimeoutEnded(record, now)) return UniqueFd();
  UniqueFd fd(::open(ActivityPath(record).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid() || !Lock(fd.get(), LOCK_EX | LOCK_NB)) return UniqueFd();  // in use
  // Used between the look and the lock: not idle after all.
  if (!IdleTimeoutEnded(record, now)) return UniqueFd();
  return fd;
}

}  // namespace agentbox
