// SandboxManager's part in serve's MCP sessions shared between replicas (issue 20): where their
// records are kept, and how a replica that did not begin a session finds the session's sandbox.
#include "core/sandbox_manager.h"

namespace agentbox {

Backend* SandboxManager::McpSessionStore(BackendKind kind) {
  // Only a backend whose sandboxes outlive the state dir can share sessions: the others are not
  // even made here (a native backend's making reads the host).
  if (!Adopts(kind)) return nullptr;
  auto backend = BackendFor(kind);
  if (!backend.ok() || !(*backend)->SharesMcpSessions()) return nullptr;
  return *backend;
}

StatusOr<std::optional<SandboxStatus>> SandboxManager::FindMcpSessionSandbox(
    const std::string& tenant, const std::string& key) {
  if (key.empty()) return std::optional<SandboxStatus>();
  AB_ASSIGN_OR_RETURN(std::vector<SandboxRecord> all, Adoptable());
  for (SandboxRecord& record : all) {
    // The tenant too: a key is a digest of a secret, but a record is only ever its tenant's.
    if (record.mcp_session != key || record.tenant != tenant) continue;
    if (!store_.Load(record.id).ok()) {
      record.state_dir = store_.SandboxDir(record.id);
      record.adopted = true;
      AB_RETURN_IF_ERROR(store_.Adopt(record));
    }
    AB_ASSIGN_OR_RETURN(SandboxStatus found, Find(record.id));
    return std::optional<SandboxStatus>(std::move(found));
  }
  return std::optional<SandboxStatus>();
}

}  // namespace agentbox
