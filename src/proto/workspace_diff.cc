#include "proto/workspace_diff.h"

#include <algorithm>

namespace agentbox {
namespace {

// st_size of a directory is a filesystem's own bookkeeping (btrfs: twice its names' length).
int64_t SizeOf(const ManifestEntry& e) {
  return e.type == EntryType::kDir ? 0 : static_cast<int64_t>(e.size);
}

bool Differs(const ManifestEntry& a, const ManifestEntry& b) {
  if (a.type != b.type || a.inode != b.inode) return true;
  if (a.type == EntryType::kDir) return false;
  return a.size != b.size || a.mtime_ns != b.mtime_ns || a.ctime_ns != b.ctime_ns;
}

class Recorder {
 public:
  Recorder(WorkspaceChanges& out, std::string_view shown_root) : out_(out), root_(shown_root) {}

  void Add(ChangeKind kind, const ManifestEntry& e, int64_t delta) {
    (kind == ChangeKind::kCreated   ? out_.created
     : kind == ChangeKind::kDeleted ? out_.deleted
                                    : out_.modified) += 1;
    out_.size_delta += delta;
    if (out_.listed.size() == kMaxListedChanges) {
      ++out_.omitted;
      return;
    }
    out_.listed.push_back({std::string(root_) + "/" + e.path, kind, e.type, delta});
  }

 private:
  WorkspaceChanges& out_;
  std::string_view root_;
};

}  // namespace

bool PathBefore(std::string_view a, std::string_view b) {
  // '/' sorts before every other byte: the same as comparing component by component.
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    const unsigned char ux = x == '/' ? 0 : static_cast<unsigned char>(x);
    const unsigned char uy = y == '/' ? 0 : static_cast<unsigned char>(y);
    return ux < uy;
  });
}

WorkspaceChanges DiffManifests(const WorkspaceManifest& before, const WorkspaceManifest& after,
                               std::string_view shown_root) {
  WorkspaceChanges out;
  out.observed = true;
  // Past the last path of a walk that stopped early, nothing is known.
  const std::string* horizon = nullptr;
  for (const WorkspaceManifest* m : {&before, &after}) {
    if (m->complete || m->entries.empty()) continue;
    const std::string& last = m->entries.back().path;
    if (!horizon || PathBefore(last, *horizon)) horizon = &last;
  }
  auto known = [horizon](const ManifestEntry& e) {
    return !horizon || !PathBefore(*horizon, e.path);
  };
  Recorder record(out, shown_root);
  size_t i = 0, j = 0;
  const auto& a = before.entries;
  const auto& b = after.entries;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && PathBefore(a[i].path, b[j].path))) {
      if (known(a[i])) record.Add(ChangeKind::kDeleted, a[i], -SizeOf(a[i]));
      ++i;
    } else if (i == a.size() || PathBefore(b[j].path, a[i].path)) {
      if (known(b[j])) record.Add(ChangeKind::kCreated, b[j], SizeOf(b[j]));
      ++j;
    } else {
      if (Differs(a[i], b[j])) record.Add(ChangeKind::kModified, b[j], SizeOf(b[j]) - SizeOf(a[i]));
      ++i;
      ++j;
    }
  }
  const bool incomplete = !before.complete || !after.complete;
  const std::string& note = !after.note.empty() ? after.note : before.note;
  if (incomplete || !note.empty()) {
    out.partial = true;
    out.reason = note;
  }
  return out;
}

}  // namespace agentbox
