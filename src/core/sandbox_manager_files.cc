// SandboxManager's file operations that change a workspace: the agent's (core/agent_files.h),
// each a use of the sandbox and a record of its session log.
#include "base/base64.h"
#include "base/sha256.h"
#include "core/agent_files.h"
#include "core/sandbox_activity.h"
#include "core/sandbox_manager.h"
#include "core/session_records.h"

namespace agentbox {

Status SandboxManager::LoggedFileOp(const SandboxRecord& record, const char* op,
                                    nlohmann::ordered_json fields,
                                    const std::function<Status()>& call) {
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(record.backend));
  // A use, as an exec is: it waits while a restore has the workspace to itself.
  ActivityHold in_use(record);
  if (!backend->IsAlive(record)) return Unavailable("sandbox " + record.id + " is dead");
  if (!Logging(record)) return call();
  nlohmann::ordered_json rec = SessionRecordHead(op, record);
  for (auto& [key, value] : fields.items()) rec[key] = std::move(value);
  SetWorkspaceDigest(rec, "workspace_before", WorkspaceDigest(record));
  Status done = call();
  AddOutcome(rec, done);
  SetWorkspaceDigest(rec, "workspace_after", WorkspaceDigest(record));
  AppendLog(record, rec);
  return done;
}

Status SandboxManager::WriteWorkspaceFile(const SandboxRecord& record, const std::string& path,
                                          std::string_view data, uint32_t mode, bool parents) {
  nlohmann::ordered_json fields = {{"path", path},
                                   {"mode", mode},
                                   {"parents", parents},
                                   {"bytes", data.size()},
                                   {"content_digest", Sha256Of(data)}};
  if (data.size() <= kMaxLoggedContent) fields["content_base64"] = Base64Encode(data);
  return LoggedFileOp(record, "write_file", std::move(fields),
                      [&] { return AgentWriteFile(record.agent(), path, data, mode, parents); });
}

Status SandboxManager::MakeWorkspaceDir(const SandboxRecord& record, const std::string& path,
                                        bool parents) {
  return LoggedFileOp(record, "mkdir", {{"path", path}, {"parents", parents}},
                      [&] { return AgentMkdir(record.agent(), path, parents); });
}

Status SandboxManager::RemoveWorkspacePath(const SandboxRecord& record, const std::string& path,
                                           bool recursive) {
  return LoggedFileOp(record, "remove", {{"path", path}, {"recursive", recursive}},
                      [&] { return AgentRemove(record.agent(), path, recursive); });
}

Status SandboxManager::ReplaceWorkspaceText(const SandboxRecord& record, const std::string& path,
                                            const std::string& old_str,
                                            const std::string& new_str) {
  return LoggedFileOp(record, "str_replace",
                      {{"path", path}, {"old_str", old_str}, {"new_str", new_str}},
                      [&] { return AgentStrReplace(record.agent(), path, old_str, new_str); });
}

}  // namespace agentbox
