#include "app/server/tenant_quota.h"

#include "app/backends.h"
#include "app/server/tenant_census.h"

namespace agentbox {

Status TenantQuota::ReserveSandbox() {
  SandboxManager manager = MakeSandboxManager(StateStore(state_root_));
  Status reserved = ReserveForTenant(tenants_, manager, caller_);
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
