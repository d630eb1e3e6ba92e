// What changed in a workspace between two walks of it (proc/workspace_manifest.h takes them):
// the `workspace` part of the effect report. Pure.
//
// A manifest is the workspace's entries in walk order: a depth-first walk whose children come
// in name order, which is the order of PathBefore (paths compared component by component). A
// walk that stopped at its bound holds a prefix of that order, so two manifests are compared up
// to the shorter one's last path, and nothing past it is called created or deleted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proto/effect_report.h"

namespace agentbox {

struct ManifestEntry {
  std::string path;  // relative to the workspace, no leading slash: "src/main.c"
  EntryType type = EntryType::kFile;
  uint64_t inode = 0;
  uint64_t size = 0;  // st_size
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
};

struct WorkspaceManifest {
  std::vector<ManifestEntry> entries;  // in PathBefore order
  bool complete = true;                // false: the walk stopped at its bound; entries is a prefix
  std::string note;  // why incomplete, or a directory that could not be read; "" otherwise
};

// Component-wise order ("a" < "a/b" < "a-b"): a depth-first walk with children in name order.
bool PathBefore(std::string_view a, std::string_view b);

// Created: only in `after`; deleted: only in `before`; modified: a file or link whose inode,
// type, size, mtime or ctime differ (a directory is never "modified": what changed in it is
// listed as its entries; a directory's own size says nothing). Paths are shown as
// `shown_root` + "/" + path. The first kMaxListedChanges are listed in path order.
WorkspaceChanges DiffManifests(const WorkspaceManifest& before, const WorkspaceManifest& after,
                               std::string_view shown_root = "/workspace");

}  // namespace agentbox
