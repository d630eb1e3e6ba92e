#include "app/server/mcp_shared.h"

#include "mcp/session_key.h"

namespace agentbox {

Backend* SharedMcpStore(ServerContext& ctx, SandboxManager& manager) {
  return manager.McpSessionStore(ctx.config.backends.default_backend());
}

Status RecordSharedSession(Backend& store, const Caller& caller, const std::string& id) {
  Status saved = store.SaveMcpSession({mcp::SessionKey(id), caller.tenant});
  if (saved.ok()) return saved;
  return Unavailable("cannot record the MCP session for serve's other replicas: " +
                     saved.message());
}

StatusOr<bool> SharedSessionGoesOn(Backend& store, const Caller& caller, const std::string& id) {
  auto session = store.LoadMcpSession(mcp::SessionKey(id));
  if (session.ok()) return session->tenant == caller.tenant;
  if (session.status().code() == StatusCode::kNotFound) return false;
  if (session.status().code() == StatusCode::kInvalidArgument) return false;  // changed by hand
  return Unavailable("cannot look the MCP session up: " + session.status().message());
}

Status EndSharedSession(ServerContext& ctx, SandboxManager& manager, Backend& store,
                        const Caller& caller, const std::string& id) {
  const std::string key = mcp::SessionKey(id);
  Status first = store.DeleteMcpSession(key);
  auto sandbox = manager.FindMcpSessionSandbox(caller.tenant, key);
  if (!sandbox.ok()) return first.ok() ? sandbox.status() : first;
  if (*sandbox) {
    const std::string sandbox_id = (*sandbox)->record.id;
    Status removed = manager.Remove(sandbox_id, /*force=*/true);
    if (removed.ok() || removed.code() == StatusCode::kNotFound) {
      (void)ctx.tenants->Forget(sandbox_id);
    } else if (first.ok()) {
      first = removed;
    }
  }
  return first;
}

}  // namespace agentbox
