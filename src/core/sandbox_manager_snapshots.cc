// SandboxManager's snapshots: take, find, restore, diff, remove, fork, and the command whose
// failure is rolled back (core/snapshot_store.h, core/workspace_storage.h).
#include <ctime>

#include "core/agent_processes.h"
#include "core/sandbox_activity.h"
#include "core/sandbox_manager.h"
#include "core/session_records.h"

namespace agentbox {
namespace {

Status Busy(const SandboxRecord& record, const std::string& what) {
  return FailedPrecondition("sandbox " + record.id +
                            " is in use (a command or file operation runs): " + what +
                            " needs its workspace to itself; try again when it is done");
}

// What --rollback-on-failure calls a failure: anything but exiting 0.
bool Failed(const ExecResult& r) { return r.reason != ExitReason::kExited || r.exit_code != 0; }

nlohmann::ordered_json SnapshotRef(const SnapshotRecord& snapshot) {
  return {{"id", snapshot.id}, {"name", snapshot.name}};
}

}  // namespace

Status SandboxManager::CheckNoProcesses(const SandboxRecord& record) {
  AB_ASSIGN_OR_RETURN(std::vector<ProcessInfo> processes, AgentListProcesses(record.agent()));
  for (const ProcessInfo& p : processes) {
    if (p.result) continue;  // over
    return FailedPrecondition("sandbox " + record.id + " has a background process running (" +
                              p.id + "): stop it first (agentbox kill " + record.id + " " + p.id +
                              "), agentbox does not change the workspace under a running command");
  }
  return OkStatus();
}

StatusOr<SnapshotRecord> SandboxManager::TakeSnapshot(const SandboxRecord& record,
                                                      const std::string& name) {
  if (!storage_) return Unavailable("this build keeps no workspace snapshots");
  if (!name.empty()) AB_RETURN_IF_ERROR(ValidateSnapshotName(name));
  AB_RETURN_IF_ERROR(storage_->CheckSnapshottable(record));
  MarkActive(record);
  AB_ASSIGN_OR_RETURN(SnapshotLock lock, SnapshotLock::Take(record));
  AB_RETURN_IF_ERROR(CheckNewSnapshot(record, ListSnapshots(record), name));
  SnapshotRecord snap = NewSnapshotRecord(record, name);
  AB_RETURN_IF_ERROR(storage_->Snapshot(record, snap.volume));
  if (Logging(record)) {
    auto digest = storage_->SnapshotDigest(record, snap.volume, SnapshotCachePath(record, snap.id));
    if (digest.ok()) snap.workspace_digest = *digest;
  }
  if (Status st = SaveSnapshot(record, snap); !st.ok()) {
    (void)storage_->RemoveSnapshot(snap.volume);
    return st;
  }
  if (Logging(record)) {
    nlohmann::ordered_json rec = SessionRecordHead("snapshot", record);
    rec["snapshot"] = SnapshotRef(snap);
    rec["workspace_after"] = snap.workspace_digest.empty()
                                 ? nlohmann::ordered_json()
                                 : nlohmann::ordered_json(snap.workspace_digest);
    AppendLog(record, rec);
  }
  return snap;
}

StatusOr<SnapshotRecord> SandboxManager::FindSnapshot(const SandboxRecord& record,
                                                      const std::string& ref) {
  return agentbox::FindSnapshot(record, ref);
}

StatusOr<std::pair<SandboxRecord, SnapshotRecord>> SandboxManager::FindAnySnapshot(
    const std::string& ref, const std::function<bool(const SandboxRecord&)>& visible) {
  if (size_t colon = ref.find(':'); colon != std::string::npos) {
    AB_ASSIGN_OR_RETURN(SandboxStatus owner, Find(ref.substr(0, colon)));
    if (!visible(owner.record)) return NotFound("no sandbox \"" + ref.substr(0, colon) + "\"");
    AB_ASSIGN_OR_RETURN(SnapshotRecord snap,
                        agentbox::FindSnapshot(owner.record, ref.substr(colon + 1)));
    return std::make_pair(owner.record, snap);
  }
  std::vector<SandboxRecord> sandboxes;
  for (SandboxStatus& s : List()) {
    if (visible(s.record)) sandboxes.push_back(std::move(s.record));
  }
  AB_ASSIGN_OR_RETURN(auto found, FindSnapshotIn(sandboxes, ref));
  return std::make_pair(sandboxes[found.first], found.second);
}

StatusOr<SyncStats> SandboxManager::Restore(const SandboxRecord& record,
                                            const SnapshotRecord& snapshot) {
  if (!storage_) return Unavailable("this build keeps no workspace snapshots");
  AB_RETURN_IF_ERROR(CheckUsable(record));
  UniqueFd hold = TakeExclusiveUse(record);
  if (!hold.valid()) return Busy(record, "a restore");
  AB_RETURN_IF_ERROR(CheckNoProcesses(record));
  return RestoreHeld(record, snapshot);
}

StatusOr<SyncStats> SandboxManager::RestoreHeld(const SandboxRecord& record,
                                                const SnapshotRecord& snapshot) {
  nlohmann::ordered_json rec;
  if (Logging(record)) {
    rec = SessionRecordHead("restore", record);
    rec["snapshot"] = SnapshotRef(snapshot);
    SetWorkspaceDigest(rec, "workspace_before", WorkspaceDigest(record));
  }
  auto stats = storage_->Restore(record, snapshot.volume, snapshot.taken_ns);
  if (Logging(record)) {
    AddOutcome(rec, stats.status());
    SetWorkspaceDigest(rec, "workspace_after", WorkspaceDigest(record));
    AppendLog(record, rec);
  }
  return stats;
}

StatusOr<TreeDiff> SandboxManager::Diff(const SandboxRecord& record, const SnapshotRecord& snapshot,
                                        size_t max_changes) {
  if (!storage_) return Unavailable("this build keeps no workspace snapshots");
  return storage_->Diff(record, snapshot.volume, snapshot.taken_ns, max_changes);
}

Status SandboxManager::RemoveSnapshot(const SandboxRecord& record, const SnapshotRecord& snapshot) {
  if (!storage_) return Unavailable("this build keeps no workspace snapshots");
  AB_ASSIGN_OR_RETURN(SnapshotLock lock, SnapshotLock::Take(record));
  AB_RETURN_IF_ERROR(storage_->RemoveSnapshot(snapshot.volume));
  return RemoveSnapshotRecord(record, snapshot.id);
}

StatusOr<SandboxRecord> SandboxManager::Fork(const SandboxRecord& source,
                                             const SnapshotRecord& snapshot,
                                             const std::string& name, const SandboxSpec* spec) {
  if (!storage_) return Unavailable("this build keeps no workspace snapshots");
  if (!name.empty()) AB_RETURN_IF_ERROR(ValidateSandboxName(name));
  SandboxSpec forked = spec != nullptr ? *spec : source.spec;
  if (forked.backend != source.backend) {
    return InvalidArgument("a fork has its snapshot's backend (" +
                           std::string(BackendName(source.backend)) + ")");
  }
  forked.workspace.reset();  // the snapshot's copy, never a directory of the user's
  ForkSource from{snapshot.volume, snapshot.id, SnapshotCachePath(source, snapshot.id)};
  AB_ASSIGN_OR_RETURN(SandboxRecord record, CreateRecord(forked, name, "", &from));
  LogCreate(record, &snapshot);
  return record;
}

StatusOr<ExecResult> SandboxManager::ExecWithRollback(const SandboxRecord& record,
                                                      const ExecRequest& request,
                                                      OutputCapture& output, int stdin_fd,
                                                      ExecCancellation* cancellation) {
  if (!storage_) return Unavailable("this build keeps no workspace snapshots");
  AB_RETURN_IF_ERROR(CheckUsable(record));
  AB_RETURN_IF_ERROR(storage_->CheckSnapshottable(record));
  UniqueFd hold = TakeExclusiveUse(record);
  if (!hold.valid()) return Busy(record, "--rollback-on-failure");
  AB_RETURN_IF_ERROR(CheckNoProcesses(record));
  // The command's own snapshot: never listed, gone when the command is (a crash in between
  // leaves it to the sandbox's removal).
  const SnapshotRecord before = NewSnapshotRecord(record, "");
  AB_RETURN_IF_ERROR(storage_->Snapshot(record, before.volume));
  auto settle = [&](ExecResult& r) {
    r.rollback = RollbackReport{};
    if (!Failed(r)) return;
    auto restored = storage_->Restore(record, before.volume, before.taken_ns);
    r.rollback->rolled_back = restored.ok();
    if (!restored.ok()) r.rollback->error = restored.status().message();
  };
  auto result = ExecHeld(record, request, output, stdin_fd, cancellation, nullptr, settle);
  // An exec that ended without a result (the client went away, the agent failed) may still
  // have changed files: put them back too.
  if (!result.ok()) (void)storage_->Restore(record, before.volume, before.taken_ns);
  (void)storage_->RemoveSnapshot(before.volume);
  MarkActive(record);
  return result;
}

}  // namespace agentbox
