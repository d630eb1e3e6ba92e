// WorkspaceQuota: how the disk limit of one sandbox's workspace is held. Plain data: written when
// the workspace is prepared (proc/disk_quota.h), kept in the sandbox's record, reported in every
// result and by `inspect`.
#pragma once

#include <cstdint>
#include <string>

#include "spec/sandbox_spec.h"

namespace agentbox {

enum class QuotaMechanism {
  kNone,          // nothing holds the limit (see not_enforced), or no limit was asked
  kBtrfsQgroup,   // a btrfs subvolume whose qgroup limits referenced bytes
  kProjectQuota,  // ext4/xfs project quota: a block and an inode hard limit
};

struct WorkspaceQuota {
  QuotaMechanism mechanism = QuotaMechanism::kNone;
  uint64_t id = 0;                      // subvolume id (qgroup 0/id) or project id
  uint64_t limit_bytes = kNoDiskLimit;  // growth allowed: bytes the sandbox may add
  uint64_t baseline_bytes = 0;          // what the quota counted when the sandbox began
  uint64_t inode_limit = 0;             // project quotas: files the sandbox may add; 0 = none
  std::string pool_volume;              // the volume of agentbox's workspace pool, if any
  std::string not_enforced;             // why a limit that applies is not held; "" otherwise

  bool enforced() const { return mechanism != QuotaMechanism::kNone; }
  bool limited() const { return limit_bytes != kNoDiskLimit; }
};

// "btrfs-qgroup", "project-quota" or "none": the names results and `inspect` use.
inline const char* QuotaMechanismName(QuotaMechanism m) {
  switch (m) {
    case QuotaMechanism::kBtrfsQgroup:
      return "btrfs-qgroup";
    case QuotaMechanism::kProjectQuota:
      return "project-quota";
    case QuotaMechanism::kNone:
      break;
  }
  return "none";
}

}  // namespace agentbox
