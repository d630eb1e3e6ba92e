#include "proto/workspace_changes.h"

namespace agentbox {

nlohmann::ordered_json TreeDiffJson(const TreeDiff& diff) {
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const PathChange& c : diff.changes) {
    changes.push_back({{"path", c.path},
                       {"change", ChangeKindName(c.kind)},
                       {"type", c.type},
                       {"size_delta", c.size_delta}});
  }
  return {{"changes", changes},
          {"created", diff.created},
          {"modified", diff.modified},
          {"deleted", diff.deleted},
          {"truncated", diff.truncated}};
}

nlohmann::ordered_json RestoredJson(const std::string& snapshot_id, const std::string& sandbox_id,
                                    const SyncStats& stats) {
  return {{"restored", snapshot_id},
          {"sandbox", sandbox_id},
          {"kept", stats.kept},
          {"copied", stats.copied},
          {"removed", stats.removed}};
}

std::string TreeDiffText(const TreeDiff& diff) {
  std::string out;
  for (const PathChange& c : diff.changes) {
    const char letter = c.kind == ChangeKind::kCreated   ? 'A'
                        : c.kind == ChangeKind::kDeleted ? 'D'
                                                         : 'M';
    out += std::string(1, letter) + " " + c.path + (c.type == "dir" ? "/" : "") + "\n";
  }
  const uint64_t total = diff.created + diff.modified + diff.deleted;
  if (diff.truncated) out += "... " + std::to_string(total - diff.changes.size()) + " more\n";
  return out;
}

}  // namespace agentbox
