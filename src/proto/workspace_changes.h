// What a pass over a workspace tree found or did, as plain data every layer above proc/ reads:
// `agentbox diff`'s changes since a snapshot (proc/tree_diff.h) and a restore's counts
// (proc/tree_sync.h), with their JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "proto/effect_report.h"

namespace agentbox {

struct PathChange {
  std::string path;                         // relative to /workspace, e.g. "src/main.py"
  ChangeKind kind = ChangeKind::kModified;  // proto/effect_report.h: the effect report's words
  std::string type;        // "file", "dir", "symlink", "other": now (before, when deleted)
  int64_t size_delta = 0;  // bytes of a regular file: its size now less before (others: 0)
  bool content = false;    // its bytes or link target differ (false: only mode or owner)
};

struct TreeDiff {
  std::vector<PathChange> changes;                  // in path order, the first max listed
  uint64_t created = 0, modified = 0, deleted = 0;  // every change, listed or not
  bool truncated = false;                           // more changes than were listed
};

struct SyncStats {
  uint64_t kept = 0;     // entries unchanged since the snapshot, left alone
  uint64_t copied = 0;   // entries made anew from the source
  uint64_t removed = 0;  // entries the source lacks (a removed directory counts once)
};

// {"changes": [{"path", "change", "type", "size_delta"}...], "created", "modified", "deleted",
// "truncated"}
nlohmann::ordered_json TreeDiffJson(const TreeDiff& diff);
// A restore's answer (CLI --json, API, MCP): {"restored": SNAP, "sandbox": ID, "kept",
// "copied", "removed"}.
nlohmann::ordered_json RestoredJson(const std::string& snapshot_id, const std::string& sandbox_id,
                                    const SyncStats& stats);
// `agentbox diff`'s lines: "A path", "M path", "D path" (docker diff's letters), then, when
// the list was cut, one "... N more" line.
std::string TreeDiffText(const TreeDiff& diff);

}  // namespace agentbox
