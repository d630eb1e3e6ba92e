#include "proto/effect_report.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "base/utf8.h"

namespace agentbox {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Bounds on what an agent may send back (a result crosses the protocol from inside the box).
constexpr size_t kMaxWireString = 4096;

// "312B", "12.3K", "4.0M": short and approximate, for the summary line only.
std::string ApproxSize(uint64_t bytes) {
  static const char kUnits[] = "KMGT";
  if (bytes < 1024) return std::to_string(bytes) + "B";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), value < 10 ? "%.1f%c" : "%.0f%c", value, kUnits[unit]);
  return text;
}

std::string SignedApproxSize(int64_t bytes) {
  const uint64_t magnitude =
      bytes < 0 ? static_cast<uint64_t>(-(bytes + 1)) + 1 : static_cast<uint64_t>(bytes);
  return (bytes < 0 ? "-" : "+") + ApproxSize(magnitude);
}

ordered_json WorkspaceJson(const WorkspaceChanges& w) {
  ordered_json j;
  j["observed"] = w.observed;
  if (!w.observed) {
    j["reason"] = SanitizeUtf8(w.reason);
    return j;
  }
  j["created"] = w.created;
  j["modified"] = w.modified;
  j["deleted"] = w.deleted;
  j["size_delta"] = w.size_delta;
  ordered_json changes = ordered_json::array();
  for (const WorkspaceChange& c : w.listed) {
    ordered_json one;
    one["path"] = SanitizeUtf8(c.path);
    one["change"] = ChangeKindName(c.change);
    one["type"] = EntryTypeName(c.type);
    one["size_delta"] = c.size_delta;
    changes.push_back(std::move(one));
  }
  j["changes"] = std::move(changes);
  if (w.omitted > 0) j["changes_omitted"] = w.omitted;
  if (w.partial) {
    j["partial"] = true;
    j["reason"] = SanitizeUtf8(w.reason);
  }
  return j;
}

ordered_json WallJson(const Wall& w) {
  ordered_json j;
  j["wall"] = SanitizeUtf8(w.wall);
  j["what"] = SanitizeUtf8(w.what);
  j["count"] = w.count;
  if (!w.error.empty()) j["errno"] = SanitizeUtf8(w.error);
  j["rule"] = SanitizeUtf8(w.rule);
  if (!w.process.empty()) j["process"] = SanitizeUtf8(w.process);
  j["seen_by"] = SanitizeUtf8(w.seen_by);
  j["message"] = SanitizeUtf8(w.message);
  return j;
}

// A string member (empty when absent); throws json::exception on a wrong type, which the
// caller turns into one error. Long strings are cut: they only ever carry words.
std::string Text(const json& j, const char* key) {
  if (!j.contains(key)) return "";
  std::string text = j.at(key).get<std::string>();
  if (text.size() > kMaxWireString) text.resize(kMaxWireString);
  return text;
}

WorkspaceChanges WorkspaceFromJson(const json& j) {
  WorkspaceChanges w;
  w.observed = j.at("observed").get<bool>();
  w.reason = Text(j, "reason");
  if (!w.observed) return w;
  w.created = j.at("created").get<uint64_t>();
  w.modified = j.at("modified").get<uint64_t>();
  w.deleted = j.at("deleted").get<uint64_t>();
  w.size_delta = j.at("size_delta").get<int64_t>();
  w.partial = j.value("partial", false);
  w.omitted = j.value("changes_omitted", uint64_t{0});
  for (const json& one : j.at("changes")) {
    if (w.listed.size() == kMaxListedChanges) break;
    WorkspaceChange c;
    c.path = Text(one, "path");
    const std::string change = Text(one, "change");
    c.change = change == "deleted"    ? ChangeKind::kDeleted
               : change == "modified" ? ChangeKind::kModified
                                      : ChangeKind::kCreated;
    const std::string type = Text(one, "type");
    c.type = type == "dir"       ? EntryType::kDir
             : type == "symlink" ? EntryType::kSymlink
             : type == "other"   ? EntryType::kOther
                                 : EntryType::kFile;
    c.size_delta = one.at("size_delta").get<int64_t>();
    w.listed.push_back(std::move(c));
  }
  return w;
}

Wall WallFromJson(const json& j) {
  Wall w;
  w.wall = Text(j, "wall");
  w.what = Text(j, "what");
  w.count = j.at("count").get<uint64_t>();
  w.error = Text(j, "errno");
  w.rule = Text(j, "rule");
  w.process = Text(j, "process");
  w.seen_by = Text(j, "seen_by");
  w.message = Text(j, "message");
  return w;
}

std::optional<uint64_t> OptionalCount(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<uint64_t>();
}

// "seccomp unshare x2", "read-only root /usr/bin x812", "timeout 2s".
std::string ShortWall(const Wall& w) {
  std::string kind = w.wall == kWallReadOnlyRoot   ? "read-only root"
                     : w.wall == kWallPidNamespace ? "pid namespace"
                     : w.wall == kWallLimit        ? ""
                                                   : w.wall;
  std::string text = kind.empty() ? w.rule : kind + " " + w.what;
  if (w.wall != kWallLimit && w.count > 1) text += " x" + std::to_string(w.count);
  return text;
}

std::string WorkspaceSummary(const WorkspaceChanges& w) {
  std::string text;
  auto add = [&text](uint64_t n, const char* what) {
    if (n == 0) return;
    text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  add(w.created, "created");
  add(w.modified, "modified");
  add(w.deleted, "deleted");
  std::string line =
      "/workspace: " + (text.empty() ? std::string("no change counted")
                                     : text + " (" + SignedApproxSize(w.size_delta) + ")");
  // A bounded walk must not read as the whole story: the counts cover only what it reached.
  if (w.partial) line += " (partial: " + w.reason + ")";
  return line;
}

}  // namespace

const char* ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kCreated:
      return "created";
    case ChangeKind::kModified:
      return "modified";
    case ChangeKind::kDeleted:
      return "deleted";
  }
  return "modified";
}

const char* EntryTypeName(EntryType type) {
  switch (type) {
    case EntryType::kFile:
      return "file";
    case EntryType::kDir:
      return "dir";
    case EntryType::kSymlink:
      return "symlink";
    case EntryType::kOther:
      return "other";
  }
  return "other";
}

void EffectReport::AddWall(Wall wall) {
  if (walls.size() < kMaxWalls) {
    walls.push_back(std::move(wall));
  } else {
    ++walls_omitted;
  }
}

ordered_json EffectsJson(const EffectReport& r) {
  ordered_json j;
  j["workspace"] = WorkspaceJson(r.workspace);
  ordered_json walls = ordered_json::array();
  for (const Wall& w : r.walls) walls.push_back(WallJson(w));
  j["walls"] = std::move(walls);
  if (r.walls_omitted > 0) j["walls_omitted"] = r.walls_omitted;
  j["syscalls_observed"] = r.syscalls_observed;
  if (!r.syscalls_observed) j["syscalls_reason"] = SanitizeUtf8(r.syscalls_reason);
  j["processes_started"] = r.processes_started ? ordered_json(*r.processes_started) : nullptr;
  j["bytes_written"] = r.bytes_written ? ordered_json(*r.bytes_written) : nullptr;
  return j;
}

StatusOr<EffectReport> EffectsFromJson(const json& j) {
  EffectReport r;
  try {
    r.workspace = WorkspaceFromJson(j.at("workspace"));
    for (const json& one : j.at("walls")) {
      if (r.walls.size() == kMaxWalls) break;
      r.walls.push_back(WallFromJson(one));
    }
    r.walls_omitted = j.value("walls_omitted", uint64_t{0});
    r.syscalls_observed = j.at("syscalls_observed").get<bool>();
    r.syscalls_reason = Text(j, "syscalls_reason");
    r.processes_started = OptionalCount(j, "processes_started");
    r.bytes_written = OptionalCount(j, "bytes_written");
  } catch (const json::exception& e) {
    return Internal(std::string("malformed effect report: ") + e.what());
  }
  return r;
}

std::string EffectsSummaryLine(const EffectReport& r) {
  const bool changed = r.workspace.observed && (!r.workspace.empty() || r.workspace.partial);
  if (!changed && r.walls.empty()) return "";
  std::string line = "effects: ";
  if (changed) line += WorkspaceSummary(r.workspace);
  if (!r.walls.empty()) {
    line += changed ? "; walls: " : "walls: ";
    constexpr size_t kShown = 4;
    for (size_t i = 0; i < r.walls.size() && i < kShown; ++i) {
      line += (i ? ", " : "") + ShortWall(r.walls[i]);
    }
    const uint64_t more =
        r.walls.size() > kShown ? r.walls.size() - kShown + r.walls_omitted : r.walls_omitted;
    if (more > 0) line += " and " + std::to_string(more) + " more";
  }
  if (r.processes_started) line += "; " + std::to_string(*r.processes_started) + " processes";
  if (r.bytes_written && *r.bytes_written > 0) {
    line += (r.processes_started ? ", " : "; ") + ApproxSize(*r.bytes_written) + " written";
  }
  return line;
}

}  // namespace agentbox
