// The workspace digest of the session log: one "sha256:..." naming what a workspace holds.
//
// What it covers: every entry beneath the root, in path order, with its path, type, permission
// bits, size and content (a regular file's SHA-256, a symlink's target). Owners, times and inode
// numbers are left out, so two workspaces holding the same files have the same digest whatever
// made them: a recorded session and its replay, on any backend.
//
// What it costs: maintained incrementally, as git's index is. A cache beside the sandbox's
// state remembers, per path, the inode, size, mtime and ctime it last saw and the content hash
// it computed; a digest hashes only the files whose stat changed since. An unchanged 1 GB,
// 50,000-file workspace costs one walk (a stat per entry), not 1 GB of hashing. A file whose
// ctime is within kRacyMarginNs of the digest is hashed again next time (a change in the same
// clock tick keeps its times).
//
// Host side, as root, over a tree a sandbox writes: the walk of workspace_tree.h (no symlink
// followed, no mount crossed).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/status.h"

namespace agentbox {

struct DigestCacheEntry {
  uint64_t ino = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;  // -1: hashed too close to a change to be trusted next time
  std::string hash;      // "sha256:..." of the content
};
using DigestCache = std::unordered_map<std::string, DigestCacheEntry>;

// The cache as bytes and back; a cache that does not decode is an empty one (it only saves
// work).
std::string EncodeDigestCache(const DigestCache& cache);
DigestCache DecodeDigestCache(std::string_view bytes);

// The bytes one entry contributes to the digest: "<type> <mode> <size> <content> <path>\0",
// type f, d, l or o; mode the permission bits in octal; content the file's or the link
// target's SHA-256, "-" for others. Pure.
std::string DigestRecord(const std::string& path, mode_t mode, uint64_t size,
                         const std::string& content);

// The digest of the tree at root_fd. `cache` (may be null) is read and brought up to date: it
// then holds exactly the regular files seen. now_ns: the time of the digest (racy bound).
StatusOr<std::string> DigestTree(int root_fd, DigestCache* cache, int64_t now_ns);

// DigestTree of the directory `root`, starting from the cache in the file read_cache (none
// when "" or unreadable), the cache it ends with written to write_cache (when not "";
// atomically, 0600).
StatusOr<std::string> DigestWorkspace(const std::string& root, const std::string& read_cache,
                                      const std::string& write_cache);

}  // namespace agentbox
