// DiskGrowth: how much one command adds to its workspace (CONTRACT: --disk-limit), checked while
// it runs and at its end.
//
// Exact where it matters, cheap where it cannot matter. The exact answer is a walk of the tree
// (DiskUsageBytes: a stat per file, ~50 ms for 20,000 files on a small host), and an exec
// otherwise pays two of them whatever it does, a big repository in /workspace turning every
// `true` into 100 ms and its sandbox's CPU quota into "limits hit: cpu". So:
//  - on filesystems whose free-space count includes writes not yet on disk (ext4, xfs, tmpfs),
//    no walk is needed while the filesystem holding the workspace has grown by less than half
//    the limit since the command started: the workspace cannot have grown by the limit (unless
//    something else on that filesystem freed as much meanwhile: docs/security.md);
//  - elsewhere, walks while the command runs take at most about a tenth of its time.
// The baseline (what the workspace held before) is walked up front, or, where the filesystem's
// count stands in for it, in a background thread that only a check that needs it waits for: a
// command that never grows the filesystem by half the limit never waits for any walk. (Either
// way the walk runs while the command may already write: what it writes before the walk gets
// there counts as the baseline.)
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace agentbox {

class DiskGrowth {
 public:
  enum class Baseline { kWalkNow, kWalkInBackground };

  // Walks dir for the baseline (an empty directory: one stat). kWalkInBackground: in a detached
  // thread, for a process that never forks after this (an agent's exec handler) and may exit
  // without waiting for it. A limit of 0 means nothing may be added at all.
  DiskGrowth(std::string dir, uint64_t limit_bytes, Baseline how = Baseline::kWalkNow);

  // While the command runs (called every ~100 ms): true once it has added more than the limit.
  bool ExceededWhileRunning();
  // When it has ended: true when it reached the limit (a write refused at the limit leaves the
  // workspace exactly full).
  bool ReachedAtEnd();

 private:
  // False when the filesystem says the workspace cannot have grown by half the limit yet.
  bool MightHaveGrownByHalf() const;
  uint64_t Walk();
  uint64_t BaselineBytes();

  struct BackgroundWalk;  // shared with the walking thread, which may outlive this object

  std::string dir_;
  uint64_t limit_;
  std::optional<uint64_t> baseline_;
  std::shared_ptr<BackgroundWalk> background_;
  std::optional<uint64_t> fs_used_at_start_;  // unset: no filesystem count we can trust
  std::chrono::steady_clock::duration last_walk_{};
  std::chrono::steady_clock::time_point next_walk_{};
};

// Bytes in use on the filesystem holding path, when that count includes writes still in the page
// cache (ext4, xfs, tmpfs); nullopt elsewhere (e.g. btrfs updates it at commit).
std::optional<uint64_t> FilesystemUsedBytes(const std::string& path);

}  // namespace agentbox
