// What an MCP session's sandbox and commands are charged against. `agentbox serve` charges the
// tenant's quotas, the same counters as its REST API (app/server/tenant_quota.h); `agentbox mcp`
// over stdio charges nothing (no McpQuota at all).
#pragma once

#include <string>

#include "base/status.h"

namespace agentbox {

class McpQuota {
 public:
  virtual ~McpQuota() = default;

  // Before the session creates its own sandbox: a slot for it, or an error saying which quota
  // is used up. Every successful call is followed by SandboxCreated or SandboxNotCreated.
  virtual Status ReserveSandbox() = 0;
  // The sandbox exists now (on failure to record it, the caller removes it and gives up).
  virtual Status SandboxCreated(const std::string& id) = 0;
  virtual void SandboxNotCreated() = 0;
  // The session's sandbox is gone (removed with the session): its slot is free.
  virtual void SandboxRemoved(const std::string& id) = 0;

  // Before a tool call runs a command: a slot among the commands running at once, or an error
  // saying which quota is used up. Every successful call is followed by EndExec.
  virtual Status StartExec() = 0;
  virtual void EndExec() = 0;
};

}  // namespace agentbox
