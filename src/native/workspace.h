// Workspace: the host directory behind /workspace, and whose it is.
//
// Parent side. Creates the directory (or a private temp dir), decides which host uid the
// sandbox's uid 1000 maps to, and when that differs from the directory's owner, prepares an
// idmapped clone of it so files the sandbox writes land on the host owned by the directory's
// owner (CONTRACT §2) while the sandbox's processes are never host uid 0.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

// Host ids for sandbox processes when the workspace owner cannot be used (it is root).
// Unprivileged, unused by Debian (above the subuid ranges useradd hands out), documented in
// docs/security.md.
inline constexpr uid_t kSandboxHostRootId = 3'900'000'000u;  // uid 0 inside
inline constexpr uid_t kSandboxHostUserId = 3'900'001'000u;  // uid 1000 inside

// Private workspaces of `run` are $TMPDIR/agentbox-ws-<pid>-XXXXXX.
inline constexpr const char* kRunWorkspacePrefix = "agentbox-ws-";

struct Workspace {
  std::string host_path;   // absolute, symlinks resolved
  bool temporary = false;  // created by us; removed with the sandbox
  uid_t owner_uid = 0;     // the directory's owner on the host
  gid_t owner_gid = 0;
  uid_t sandbox_host_uid = 0;  // what uid 1000 inside is on the host
  gid_t sandbox_host_gid = 0;
  UniqueFd idmapped_tree;  // detached idmapped mount, when owner != sandbox host ids
};

// The host ids the sandbox's uid 1000 has when the backend fixes them (docker: no user
// namespace, so uid 1000 inside is uid 1000 on the host).
struct SandboxHostIds {
  uid_t uid;
  gid_t gid;
};

// requested: --workspace DIR (created if missing, kept) or nullopt for a private dir: a fresh
// temp dir, or private_dir when given (a persistent sandbox keeps it in its state dir).
// fixed_ids: unset, the sandbox user is the owner (or kSandboxHostUserId for a root-owned dir).
StatusOr<Workspace> PrepareWorkspace(const std::optional<std::string>& requested,
                                     const std::string& private_dir = "",
                                     std::optional<SandboxHostIds> fixed_ids = std::nullopt);

// Removes a temporary workspace recursively without following symlinks out of it.
void RemoveTemporaryWorkspace(const Workspace& ws);

// Bytes allocated on disk beneath dir (like `du -s`), not following symlinks or crossing mounts.
uint64_t DiskUsageBytes(const std::string& dir);

}  // namespace agentbox
