// What the two ways of running one command through `agentbox serve` share: POST .../exec
// (handlers_exec.cc) and the terminal WebSocket (handlers_terminal.cc). The same body rules and
// operator's ceilings, the same tenant slot, the same metrics and access-log line.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "app/server/server_context.h"
#include "http/api_bodies.h"

namespace agentbox {

// Releases the tenant's exec slot (taken with TenantRegistry::StartExec) however a handler
// leaves.
struct ExecSlot {
  TenantRegistry& tenants;
  const Caller& caller;
  ~ExecSlot() { tenants.EndExec(caller); }
};

struct RunOutcome {
  StatusOr<ExecResult> result;
  double seconds;
};

// The exec body laid over the sandbox's defaults, held to the operator's ceilings: an exec
// asking for more is refused (kInvalidArgument); a sandbox whose own defaults are larger (made
// by the CLI) is held to them, which bounds what this server buffers. A detached one that names
// no timeout gets the ceiling.
StatusOr<ExecBody> ExecBodyWithinLimits(const ServerContext& ctx, const nlohmann::json& json,
                                        const SandboxRecord& record, std::string_view accept);

// The metrics, and the access log's line: how the command ended, never what it printed.
void RecordOutcome(ServerContext& ctx, Exchange& ex, const SandboxRecord& record,
                   const RunOutcome& run);

}  // namespace agentbox
