// Workspace: the host directory behind /workspace, whose it is, and what holds its disk limit.
//
// Parent side. Either agentbox makes the workspace (a volume of its workspace pool, with the
// disk limit as its quota), or the user names a directory, which must not be a system directory
// nor agentbox's state, is refused when root owns it and it is not empty (the command would
// act as root over its files) unless the user accepts that, must hold no socket or FIFO (a
// door to a host process), and gets a project quota where its filesystem has them.
// The sandbox's uid 1000 is, on the host, kSandboxHostUserId, an id no account has; an
// idmapped clone of the directory makes the files it writes land owned by the directory's
// owner (docs/contract.md §2). docs/security.md "Who may pick a host directory" says why each rule.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/status.h"
#include "spec/sandbox_spec.h"
#include "spec/workspace_quota.h"
#include "sys/unique_fd.h"

namespace agentbox {

// Private workspaces of `run` made where no pool can be had: $TMPDIR/agentbox-ws-<pid>-XXXXXX.
inline constexpr const char* kRunWorkspacePrefix = "agentbox-ws-";

// The host ids the sandbox's uid 1000 has when the backend fixes them (docker).
struct SandboxHostIds {
  uid_t uid;
  gid_t gid;
};

struct WorkspaceRequest {
  std::optional<std::string> host_dir;  // --workspace DIR; unset: agentbox makes one
  std::string state_root;               // its storage/ holds the pool and quota holds
  std::string name;                     // volume and hold name: "sb-<id>", "run-<pid>-<hex>"
  std::string fallback_dir;  // a private workspace when no pool can be had ("" = in $TMPDIR)
  uint64_t disk_limit = kNoDiskLimit;
  bool disk_limit_explicit = false;  // asked for (flag, policy, API), not the built-in default
  bool allow_root_owned = false;     // --allow-root-owned-workspace
  std::optional<SandboxHostIds> fixed_ids;
  // A fork: the new private workspace starts as this volume of the pool (a snapshot) holds.
  std::string source_volume;
};

struct Workspace {
  std::string host_path;   // absolute, symlinks resolved
  bool temporary = false;  // made by agentbox for this sandbox; deleted with it
  uid_t owner_uid = 0;     // the directory's owner on the host
  gid_t owner_gid = 0;
  uid_t sandbox_host_uid = 0;  // what uid 1000 inside is on the host
  gid_t sandbox_host_gid = 0;
  UniqueFd idmapped_tree;  // detached idmapped mount, when owner != sandbox host ids
  WorkspaceQuota quota;
};

// Fails with one line and nothing changed: a refused directory, a disk limit that was asked for
// and cannot be held there (kInvalidArgument, naming what is missing and what to do instead).
// A built-in default limit that cannot be held is not a failure: quota.not_enforced says why.
StatusOr<Workspace> PrepareWorkspace(const WorkspaceRequest& request);

// Gives back what PrepareWorkspace took for the sandbox `name`: a private workspace is deleted
// (its pool volume or directory), a quota hold on a given directory released. Never touches
// the data of a directory the user gave.
void ReleaseWorkspace(const std::string& state_root, const std::string& name,
                      const std::string& host_path, bool temporary, const WorkspaceQuota& quota);

// Deletes the pool volumes whose names begin with `prefix` (a sandbox's snapshots). Best
// effort: what fails stays for gc.
void ReleaseVolumes(const std::string& state_root, const std::string& prefix);

// The request for a sandbox of `spec` named `name` ("sb-<id>", "run-<pid>-<hex>").
WorkspaceRequest WorkspaceRequestFor(const SandboxSpec& spec, const std::string& state_root,
                                     const std::string& name);

// STATE/storage: the workspace pool; STATE/storage/projects: holds on project quotas.
std::string WorkspaceStorageDir(const std::string& state_root);
std::string QuotaHoldersDir(const std::string& state_root);

}  // namespace agentbox
