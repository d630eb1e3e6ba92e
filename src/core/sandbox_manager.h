// SandboxManager: the persistent sandboxes of docs/contract.md §3, whatever their backend.
//
// The one place the CLI, the HTTP server and the MCP server go through. Names and records live
// in the StateStore; the box itself belongs to a Backend; commands and files go through the
// sandbox's agent. Errors are Status values with one clear line.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "core/agent_exec.h"
#include "core/agent_processes.h"
#include "core/backend.h"
#include "core/pids_limit.h"
#include "core/snapshot_store.h"
#include "core/state_store.h"
#include "core/verify.h"
#include "core/workspace_storage.h"
#include "proto/exec_result.h"
#include "proto/exec_wire.h"
#include "proto/output_capture.h"

namespace agentbox {

enum class SandboxState { kRunning, kDead };
const char* SandboxStateName(SandboxState state);

struct SandboxStatus {
  SandboxRecord record;
  SandboxState state = SandboxState::kDead;
};

// Why a sandbox's life ended: its ttl, or its idle timeout.
enum class SandboxEnding { kTtl, kIdle };

struct PoolStatus {
  std::string key;
  size_t size = 0;  // how many to keep warm
  size_t warm = 0;  // how many are warm now
  BackendKind backend = BackendKind::kNative;
  std::string image;
};

struct GcReport {
  std::vector<std::string> removed;  // ids (or cgroup names) cleaned up
};

class SandboxManager {
 public:
  // backends: the ones this build has (app/backends.h); a spec naming another is refused.
  static StatusOr<SandboxManager> Open(BackendList backends);
  SandboxManager(StateStore store, BackendList backends)
      : store_(std::move(store)), makers_(std::move(backends)) {}

  // Creates and starts a sandbox; `name` may be empty. Nothing is left behind on failure.
  // `tenant` (serve's) is kept in the record; on a backend whose sandboxes are Adoptable it is
  // written on the box, so no warm pool's box (made for no one) is claimed for it.
  StatusOr<SandboxRecord> Create(const SandboxSpec& spec, const std::string& name,
                                 const SandboxTenant& tenant = {});
  // Find looks in the state store, then (a miss) among the backends' Adoptable sandboxes: an id,
  // a name or a unique id prefix there is adopted (kept in the store, marked adopted). List shows
  // those beside the store's, once each. A record whose box does not answer and that its
  // backend says is Gone (its pod removed through another state dir) is dropped, as not found.
  // Find and List never return a sandbox whose ttl has passed or that has been unused for its
  // idle timeout: they remove it first, as RemoveExpired does (Find then answers kNotFound
  // saying so). A sandbox running an exec is never idle.
  StatusOr<SandboxStatus> Find(const std::string& ref);
  std::vector<SandboxStatus> List();
  // Removes, as `rm -f` would, every sandbox whose ttl has passed or that has been idle for its
  // idle timeout; returns their ids and why.
  std::vector<std::pair<std::string, SandboxEnding>> RemoveExpired();
  // Called with a pool's key after a create claimed one of its warm sandboxes, to top the pool
  // up in the background (app starts a detached `agentbox pool fill --key KEY`). Unset: the
  // pool stays one short until the next `pool fill`.
  void set_refill(std::function<void(const std::string& pool_key)> hook) {
    refill_ = std::move(hook);
  }
  // Called with each sandbox this manager removes for its ttl or idle timeout (serve counts
  // them).
  void set_on_expired(std::function<void(const SandboxRecord&)> hook) {
    on_expired_ = std::move(hook);
  }
  // Snapshots, restores, diffs and workspace digests (app's: backend_common's pool storage).
  // Unset: snapshots are refused, and session logs carry no workspace digests.
  void set_workspace_storage(std::shared_ptr<WorkspaceStorage> storage) {
    storage_ = std::move(storage);
  }
  // Called with each session log record this manager appends (replay compares them).
  void set_session_observer(std::function<void(const nlohmann::ordered_json&)> hook) {
    observer_ = std::move(hook);
  }
  // Runs one command; limits it ran into at the sandbox level (memory, pids, cpu) are added.
  // With request.tty, `terminal` gives the command's keystrokes and window sizes.
  StatusOr<ExecResult> Exec(const SandboxRecord& record, const ExecRequest& request,
                            OutputCapture& output, int stdin_fd = -1,
                            ExecCancellation* cancellation = nullptr,
                            TerminalInput* terminal = nullptr);
  // Exec with `--rollback-on-failure`: a command that fails (exits non-zero, times out, is
  // killed or OOM-killed, or cannot run) leaves the workspace exactly as it was before it:
  // snapshotted first, restored after. Needs the workspace to itself: refused (nothing run)
  // while another command or a background process runs, and other commands wait for it.
  StatusOr<ExecResult> ExecWithRollback(const SandboxRecord& record, const ExecRequest& request,
                                        OutputCapture& output, int stdin_fd = -1,
                                        ExecCancellation* cancellation = nullptr);
  // `run` on a backend without a one-shot path (docker): a sandbox made for one command and
  // removed after it, whatever happened (`cancellation` stops the command). The result stands
  // when the removal fails; *removal_error then says why.
  StatusOr<ExecResult> RunOnce(const SandboxSpec& spec, const std::vector<std::string>& argv,
                               OutputCapture& output, ExecCancellation* cancellation,
                               Status* removal_error);
  // Background processes (`exec --detach`, core/agent_processes.h; in
  // sandbox_manager_processes.cc). Each is an exec of the sandbox as far as its activity goes:
  // a request about it is a use; a process that only runs keeps no sandbox from being idle.
  StatusOr<ProcessInfo> StartProcess(const SandboxRecord& record, const ExecRequest& request);
  StatusOr<std::vector<ProcessInfo>> ListProcesses(const SandboxRecord& record);
  StatusOr<ProcessLogs> ProcessOutput(const SandboxRecord& record, const std::string& id,
                                      bool follow, uint64_t since, OutputCapture& output,
                                      ExecCancellation* cancellation = nullptr);
  StatusOr<ProcessInfo> WaitProcess(const SandboxRecord& record, const std::string& id,
                                    double timeout_seconds,
                                    ExecCancellation* cancellation = nullptr);
  StatusOr<ProcessInfo> SignalProcess(const SandboxRecord& record, const std::string& id,
                                      int signal);
  StatusOr<ProcessInfo> WriteProcessStdin(const SandboxRecord& record, const std::string& id,
                                          const std::string& data, bool close);

  // The request `exec` sends by default: the sandbox's policy for time, output and disk.
  static ExecRequest DefaultExecRequest(const SandboxRecord& record);
  // Kills and removes; keeps a workspace the user gave. Without force, refuses a sandbox that
  // is running commands with kFailedPrecondition (no hint: each front end names its own force).
  Status Remove(const std::string& ref, bool force);
  // Removes dead sandboxes and whatever a crash left (cgroups, state dirs, private workspaces).
  GcReport Gc();
  // inspect: id, name, backend, state, policy, workspace, created_at, usage, pids_limit.
  StatusOr<std::string> InspectJson(const std::string& ref);
  // Whether the box's kernel holds the policy's pids limit (core/pids_limit.h), from its
  // backend's reading now; create notes one that is not held.
  PidsLimitReport PidsLimitOf(const SandboxRecord& record);
  // inspect --verify (core/verify.h): runs the probe inside the sandbox through Exec and
  // compares what it saw with the policy. A report that is not ok() is still a value; the
  // Status is for a sandbox that cannot be found, is dead, or whose probe could not run.
  StatusOr<VerifyReport> Verify(const std::string& ref);

  // Snapshots of a sandbox's workspace (core/snapshot_store.h; sandbox_manager_snapshots.cc).
  // Take one: refused past the policy's max_snapshots, or where the workspace cannot be
  // snapshotted (a directory the user gave).
  StatusOr<SnapshotRecord> TakeSnapshot(const SandboxRecord& record, const std::string& name);
  // A SNAP of the sandbox: its id, a unique id prefix, or its name.
  StatusOr<SnapshotRecord> FindSnapshot(const SandboxRecord& record, const std::string& ref);
  // A SNAP of any sandbox `visible` lets through: an id (prefix) or SANDBOX:NAME.
  StatusOr<std::pair<SandboxRecord, SnapshotRecord>> FindAnySnapshot(
      const std::string& ref, const std::function<bool(const SandboxRecord&)>& visible);
  // Puts the workspace back as the snapshot holds it, in place; the same exclusivity as
  // ExecWithRollback.
  StatusOr<SyncStats> Restore(const SandboxRecord& record, const SnapshotRecord& snapshot);
  StatusOr<TreeDiff> Diff(const SandboxRecord& record, const SnapshotRecord& snapshot,
                          size_t max_changes);
  Status RemoveSnapshot(const SandboxRecord& record, const SnapshotRecord& snapshot);
  // A new sandbox of `source`'s policy (or `spec`, a replay's) whose workspace starts as the
  // snapshot holds it (on btrfs sharing every block with it). `name` may be empty.
  StatusOr<SandboxRecord> Fork(const SandboxRecord& source, const SnapshotRecord& snapshot,
                               const std::string& name, const SandboxSpec* spec = nullptr);

  // The file operations that change a workspace (core/agent_files.h), through the session log
  // (sandbox_manager_files.cc): each is a use of the sandbox, as an exec is.
  Status WriteWorkspaceFile(const SandboxRecord& record, const std::string& path,
                            std::string_view data, uint32_t mode, bool parents);
  Status MakeWorkspaceDir(const SandboxRecord& record, const std::string& path, bool parents);
  Status RemoveWorkspacePath(const SandboxRecord& record, const std::string& path, bool recursive);
  Status ReplaceWorkspaceText(const SandboxRecord& record, const std::string& path,
                              const std::string& old_str, const std::string& new_str);
  // The sandbox's session log (core/session_log.h), as written.
  StatusOr<std::string> SessionLogText(const SandboxRecord& record);

  // Warm pools (core/warm_pool.h; sandbox_manager_pool.cc). FillPool records `size` as the pool's
  // target for spec's shape and starts sandboxes until that many are warm; returns how many it
  // started. RefillPool does the same up to the target recorded once it holds the pool's lock
  // (`expected_key`: its key, refused when spec's key here is another). DrainPools waits for a
  // fill in progress, then removes every warm sandbox and sets every target to 0.
  StatusOr<size_t> FillPool(const SandboxSpec& spec, size_t size,
                            const std::string& expected_key = "");
  StatusOr<size_t> RefillPool(const std::string& key);
  size_t DrainPools();
  std::vector<PoolStatus> ListPools();

  StateStore& store() { return store_; }

  // The sandboxes every adopting backend holds (sandbox_manager_adopt.cc): none where no backend
  // adopts or none is configured to; kUnavailable when they cannot be read.
  StatusOr<std::vector<SandboxRecord>> Adoptable();
  // True when sandboxes of `kind` may be Adoptable (BackendMaker::adopts).
  bool Adopts(BackendKind kind) const;
  // Tenant `tenant`'s sandbox among them that `ref` names: the tenant's name for it, its id or a
  // unique id prefix; adopted into the store as Find does, and returned as Find finds it.
  // kNotFound when none is (another tenant's never is), kInvalidArgument when several are.
  StatusOr<SandboxStatus> FindTenantSandbox(const std::string& tenant, const std::string& ref);

  // serve's MCP sessions shared between replicas (sandbox_manager_mcp.cc): the backend of `kind`
  // when it SharesMcpSessions, else nullptr (the sessions are the replica's own).
  Backend* McpSessionStore(BackendKind kind);
  // The sandbox of MCP session `key` of `tenant` among the adopting backends' (made through
  // another replica), adopted into the store as FindTenantSandbox does; nullopt when it has none
  // yet. Another tenant's is never matched. kUnavailable when the cluster cannot be asked.
  StatusOr<std::optional<SandboxStatus>> FindMcpSessionSandbox(const std::string& tenant,
                                                               const std::string& key);

 private:
  StatusOr<Backend*> BackendFor(BackendKind kind);
  // The one of them `ref` names, adopted into the store; `not_here` (the store's answer) when
  // none is, kInvalidArgument when several are, kUnavailable when they cannot be read.
  StatusOr<SandboxRecord> Adopt(const std::string& ref, const Status& not_here);
  // Destroys a record whose box is dead and, its backend says, gone: true when it was dropped.
  bool DropIfGone(const SandboxRecord& record, bool alive);
  // A running sandbox for a background-process request (the same checks as Exec's).
  Status CheckUsable(const SandboxRecord& record);
  // `record` as it is with its egress proxy running on this host (sandbox_manager_egress.cc):
  // itself where nothing can be missing, else re-read, with a proxy started and kept when none
  // ran (Backend::ResumeEgress). An error when none can start.
  StatusOr<SandboxRecord> WithEgress(const SandboxRecord& record);
  Status Destroy(const SandboxRecord& record);
  // Destroy, for a sandbox whose ttl has passed.
  // Unavailable (and nothing done) for an idle ending while the sandbox is in use.
  Status Expire(const SandboxRecord& record, SandboxEnding ending);
  // What a fork's workspace is made from (SandboxRecord's fields of the same names).
  struct ForkSource {
    std::string workspace_source;  // the snapshot's volume
    std::string forked_from;       // the snapshot's id
    std::string digest_seed;       // the snapshot's digest cache
  };
  StatusOr<SandboxRecord> CreateRecord(const SandboxSpec& spec, const std::string& name,
                                       const std::string& pool_key,
                                       const ForkSource* from = nullptr,
                                       const SandboxTenant& tenant = {});
  // The exec itself, the caller holding the sandbox's use; `settle` runs on the result before
  // it is logged (the rollback).
  StatusOr<ExecResult> ExecHeld(const SandboxRecord& record, const ExecRequest& request,
                                OutputCapture& output, int stdin_fd, ExecCancellation* cancellation,
                                TerminalInput* terminal,
                                const std::function<void(ExecResult&)>& settle = nullptr);
  StatusOr<ExecResult> RunExec(const SandboxRecord& record, const ExecRequest& request,
                               OutputCapture& output, int stdin_fd, ExecCancellation* cancellation,
                               TerminalInput* terminal);
  // The session log (sandbox_manager_log.cc): whether the sandbox keeps one, its workspace
  // digest, and appending a record (then telling the observer).
  bool Logging(const SandboxRecord& record) const { return record.spec.session_log; }
  StatusOr<std::string> WorkspaceDigest(const SandboxRecord& record);
  void AppendLog(const SandboxRecord& record, const nlohmann::ordered_json& rec);
  // One file operation that changes the workspace: `call` does it; `fields` describe it.
  Status LoggedFileOp(const SandboxRecord& record, const char* op, nlohmann::ordered_json fields,
                      const std::function<Status()>& call);
  void LogCreate(const SandboxRecord& record, const SnapshotRecord* from);
  // Checks the sandbox may have its workspace changed under it by agentbox (a restore, a
  // rollback): no background process runs.
  Status CheckNoProcesses(const SandboxRecord& record);
  StatusOr<SyncStats> RestoreHeld(const SandboxRecord& record, const SnapshotRecord& snapshot);
  // A warm sandbox of spec's shape, renamed and re-specced; nullopt when the pool has none.
  std::optional<SandboxRecord> ClaimWarm(const SandboxSpec& spec, const std::string& name,
                                         Status* error);
  std::string PoolDir(const std::string& key) const;
  // PoolKey(spec, its backend's PoolScope).
  StatusOr<std::string> PoolKeyOf(const SandboxSpec& spec);

  StateStore store_;
  BackendList makers_;
  std::function<void(const SandboxRecord&)> on_expired_;
  std::function<void(const std::string&)> refill_;
  std::shared_ptr<WorkspaceStorage> storage_;
  std::function<void(const nlohmann::ordered_json&)> observer_;
  std::vector<std::pair<BackendKind, std::unique_ptr<Backend>>> backends_;
};

}  // namespace agentbox
