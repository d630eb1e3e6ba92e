// A tenant's sandboxes as every replica of serve sees them: this state dir's tenants map and,
// on a backend whose sandboxes outlive the state dir (kubernetes), the cluster's sandboxes
// labelled with the tenant. What a create's quota and name checks count (http/tenants.h
// Reserve), for REST's creates and MCP sessions' alike.
#pragma once

#include <string>

#include "base/status.h"
#include "core/sandbox_manager.h"
#include "http/auth.h"
#include "http/tenants.h"

namespace agentbox {

// Reserves one sandbox (and `name`) for caller in `tenants`, counting the tenant's sandboxes
// in `manager`'s store and its adopting backends' (one list of the cluster, only when there is
// a quota or a name to check). A store record of an adopting backend counts only while the
// cluster still holds it (removed through another replica: not). kUnavailable when the cluster
// cannot be asked: a quota that cannot be counted is not granted.
Status ReserveForTenant(TenantRegistry& tenants, SandboxManager& manager, const Caller& caller,
                        const std::string& name = "");

}  // namespace agentbox
