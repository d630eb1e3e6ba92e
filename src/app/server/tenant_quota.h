// The McpQuota of an MCP session of `agentbox serve`: the session's sandbox and commands count
// against its tenant's max_sandboxes and max_concurrent_execs, in the same TenantRegistry
// counters as the REST API's, so the two together never exceed a quota.
#pragma once

#include <string>

#include "app/mcp/mcp_quota.h"
#include "http/auth.h"
#include "http/tenants.h"

namespace agentbox {

class TenantQuota : public McpQuota {
 public:
  // `tenants` outlives every session: the server ends them all (McpSessions::Clear) first.
  TenantQuota(TenantRegistry& tenants, Caller caller, std::string state_root)
      : tenants_(tenants), caller_(std::move(caller)), state_root_(std::move(state_root)) {}

  // The sandbox is recorded as the tenant's, as one made with POST /v1/sandboxes: it counts
  // against max_sandboxes, and the tenant sees it in GET /v1/sandboxes.
  Status ReserveSandbox() override;
  Status SandboxCreated(const std::string& id) override;
  void SandboxNotCreated() override;
  void SandboxRemoved(const std::string& id) override;

  // REST answers 429 and Retry-After over max_concurrent_execs; a tool call cannot, so its
  // error says when to call again.
  Status StartExec() override;
  void EndExec() override;

 private:
  TenantRegistry& tenants_;
  const Caller caller_;
  const std::string state_root_;
};

}  // namespace agentbox
