#include "native/disk_growth.h"

#include <linux/magic.h>
#include <sys/vfs.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "native/workspace.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;

constexpr long kXfsMagic = 0x58465342;  // "XFSB"; not in every linux/magic.h
constexpr int kWalkShareDivisor = 10;   // walks take at most ~1/10 of a running command's time

}  // namespace

std::optional<uint64_t> FilesystemUsedBytes(const std::string& path) {
  struct statfs fs;
  if (::statfs(path.c_str(), &fs) != 0) return std::nullopt;
  const long type = static_cast<long>(fs.f_type);
  if (type != EXT4_SUPER_MAGIC && type != kXfsMagic && type != TMPFS_MAGIC) return std::nullopt;
  return static_cast<uint64_t>(fs.f_blocks - fs.f_bfree) * static_cast<uint64_t>(fs.f_frsize);
}

struct DiskGrowth::BackgroundWalk {
  std::mutex mutex;
  std::condition_variable done;
  std::optional<uint64_t> bytes;
};

DiskGrowth::DiskGrowth(std::string dir, uint64_t limit_bytes, Baseline how)
    : dir_(std::move(dir)), limit_(limit_bytes) {
  // The filesystem first: whatever lands between the two readings counts against the gate.
  fs_used_at_start_ = FilesystemUsedBytes(dir_);
  if (how == Baseline::kWalkNow || !fs_used_at_start_) {
    baseline_ = Walk();  // without the filesystem's gate every check walks: no use waiting
    return;
  }
  background_ = std::make_shared<BackgroundWalk>();
  std::thread([walk = background_, dir = dir_] {
    uint64_t bytes = DiskUsageBytes(dir);
    std::lock_guard<std::mutex> lock(walk->mutex);
    walk->bytes = bytes;
    walk->done.notify_all();
  }).detach();
}

uint64_t DiskGrowth::BaselineBytes() {
  if (!baseline_) {
    std::unique_lock<std::mutex> lock(background_->mutex);
    background_->done.wait(lock, [this] { return background_->bytes.has_value(); });
    baseline_ = background_->bytes;
  }
  return *baseline_;
}

bool DiskGrowth::MightHaveGrownByHalf() const {
  if (!fs_used_at_start_ || limit_ == 0) return true;  // 0: any growth at all, so always look
  auto now = FilesystemUsedBytes(dir_);
  // The filesystem grows by what the workspace gains plus what everything else on it gains:
  // only something else on it freeing as much meanwhile could hide the workspace's growth here,
  // and the command's file-size limit (RLIMIT_FSIZE = the disk limit) still caps every file.
  return !now || *now >= *fs_used_at_start_ + limit_ / 2;
}

uint64_t DiskGrowth::Walk() {
  auto start = Clock::now();
  uint64_t used = DiskUsageBytes(dir_);
  auto end = Clock::now();
  last_walk_ = end - start;
  next_walk_ = end + last_walk_ * (kWalkShareDivisor - 1);
  return used;
}

bool DiskGrowth::ExceededWhileRunning() {
  if (!MightHaveGrownByHalf()) return false;
  if (Clock::now() < next_walk_) return false;
  uint64_t baseline = BaselineBytes();  // before the walk: it must not count what came after
  return Walk() > baseline + limit_;
}

bool DiskGrowth::ReachedAtEnd() {
  if (!MightHaveGrownByHalf()) return false;
  uint64_t baseline = BaselineBytes();
  uint64_t used = Walk();
  // At the limit counts: a write refused there (RLIMIT_FSIZE) leaves the workspace exactly full.
  // A limit of 0 sets no RLIMIT_FSIZE: any growth is over it, none is not.
  return limit_ == 0 ? used > baseline : used >= baseline + limit_;
}

}  // namespace agentbox
