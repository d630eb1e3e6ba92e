// SandboxManager's session log (core/session_log.h): the digests and the appending every
// logged operation shares.
#include <unistd.h>

#include "core/sandbox_manager.h"
#include "core/session_log.h"
#include "core/session_records.h"
#include "spec/spec_json.h"
#include "sys/file_util.h"

namespace agentbox {

StatusOr<std::string> SandboxManager::WorkspaceDigest(const SandboxRecord& record) {
  if (!storage_) return Unavailable("no workspace storage in this build");
  return storage_->Digest(record);
}

void SandboxManager::AppendLog(const SandboxRecord& record, const nlohmann::ordered_json& rec) {
  // The operation happened whatever the log says: a failure to append is reported on the
  // agentbox's stderr once, not turned into the operation's failure.
  Status st = AppendSessionRecord(record.state_dir, rec);
  if (!st.ok()) {
    const std::string line = "agentbox: note: session log: " + st.message() + "\n";
    (void)!::write(STDERR_FILENO, line.data(), line.size());
  }
  if (observer_) observer_(rec);
}

void SandboxManager::LogCreate(const SandboxRecord& record, const SnapshotRecord* from) {
  if (!Logging(record)) return;
  nlohmann::ordered_json rec = SessionRecordHead("create", record);
  rec["policy"] = nlohmann::ordered_json::parse(SpecToPolicyJson(record.spec).dump());
  if (!record.name.empty()) rec["name"] = record.name;
  if (from != nullptr) {
    rec["from_snapshot"] = {{"id", from->id},
                            {"name", from->name},
                            {"sandbox", from->sandbox_id},
                            {"workspace_digest", from->workspace_digest}};
  }
  // A fork starts as its snapshot: that digest is known, and a walk of every fork of a big
  // workspace would cost what forking them does not.
  if (from != nullptr && !from->workspace_digest.empty()) {
    rec["workspace_after"] = from->workspace_digest;
  } else {
    SetWorkspaceDigest(rec, "workspace_after", WorkspaceDigest(record));
  }
  AppendLog(record, rec);
}

StatusOr<std::string> SandboxManager::SessionLogText(const SandboxRecord& record) {
  auto text = ReadFile(SessionLogPath(record.state_dir));
  if (!text.ok() && text.status().code() == StatusCode::kNotFound) {
    if (!record.spec.session_log) {
      return NotFound("sandbox " + record.id + " keeps no session log (policy session_log false)");
    }
    return std::string();
  }
  return text;
}

}  // namespace agentbox
