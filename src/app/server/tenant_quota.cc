#include "app/server/tenant_quota.h"

#include "core/state_store.h"

namespace agentbox {

Status TenantQuota::ReserveSandbox() {
  const StateStore store(state_root_);
  Status reserved =
      tenants_.Reserve(caller_, [&store](const std::string& id) { return store.Load(id).ok(); });
  if (reserved.ok()) return reserved;
  return Status(reserved.code(), reserved.message() +
                                     " (max_sandboxes): remove one (DELETE /v1/sandboxes/ID) or "
                                     "end another MCP session (DELETE /mcp), then call again");
}

Status TenantQuota::SandboxCreated(const std::string& id) { return tenants_.Commit(caller_, id); }

void TenantQuota::SandboxNotCreated() { tenants_.Cancel(caller_); }

void TenantQuota::SandboxRemoved(const std::string& id) { (void)tenants_.Forget(id); }

Status TenantQuota::StartExec() {
  Status started = tenants_.StartExec(caller_);
  if (started.ok()) return started;
  return Status(started.code(), started.message() +
                                    " (max_concurrent_execs): call again once one of them has "
                                    "finished");
}

void TenantQuota::EndExec() { tenants_.EndExec(caller_); }

}  // namespace agentbox
