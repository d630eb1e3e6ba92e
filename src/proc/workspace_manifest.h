// TakeManifest: one walk of a workspace, for the effect report's list of changes
// (proto/workspace_diff.h compares two of them: before the command and after).
//
// Why a walk and not a kernel feature: a btrfs generation scan (`find-new`) sees no deletions
// and only committed transactions, so it cannot say what one command did; fanotify cannot mark
// a btrfs subvolume's filesystem (EXDEV), a mount mark gets no create or delete events, and a
// mark on the host's filesystem would see every writer of the host. A walk costs what the
// workspace holds (about a microsecond per entry, warm: docs/performance.md), so it is bounded:
// past `max_entries` it stops and the manifest says so.
//
// Metadata only (no file is opened); fd-relative with O_NOFOLLOW, so a symlink is never
// followed and a tree changed meanwhile is walked as it is met; it stays on the workspace's
// filesystem (another mount in it is an entry, not walked).
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"
#include "proto/workspace_diff.h"

namespace agentbox {

// The default bound: entries (files, directories, links) one walk records.
inline constexpr size_t kMaxManifestEntries = 20000;

// The tree beneath `dir` (not `dir` itself). An unreadable directory below it is an entry whose
// contents are missing (the manifest's note names the first); an error only if `dir` itself
// cannot be opened.
StatusOr<WorkspaceManifest> TakeManifest(const std::string& dir,
                                         size_t max_entries = kMaxManifestEntries);

// What changed beneath `dir` since `before` (TakeManifest's, taken before the command): a second
// walk, compared. Not observed, with the reason, when either walk failed.
WorkspaceChanges ChangesSince(const StatusOr<WorkspaceManifest>& before, const std::string& dir);

}  // namespace agentbox
