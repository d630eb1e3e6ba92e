#include "native/disk_growth.h"

#include <linux/magic.h>
#include <sys/vfs.h>

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

DiskGrowth::DiskGrowth(std::string dir, uint64_t limit_bytes,
                       std::optional<uint64_t> known_baseline)
    : dir_(std::move(dir)), limit_(limit_bytes) {
  // The filesystem first: whatever lands between the two readings counts against the gate.
  fs_used_at_start_ = FilesystemUsedBytes(dir_);
  baseline_ = known_baseline ? *known_baseline : Walk();
}

bool DiskGrowth::MightHaveGrownByHalf() const {
  if (!fs_used_at_start_) return true;
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
  return Walk() > baseline_ + limit_;
}

bool DiskGrowth::ReachedAtEnd() {
  if (!MightHaveGrownByHalf()) return false;
  return Walk() >= baseline_ + limit_;
}

}  // namespace agentbox
