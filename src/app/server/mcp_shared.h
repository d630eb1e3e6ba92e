// serve's MCP sessions (2025 revisions' Mcp-Session-Id) shared between its replicas (issue 20:
// several replicas behind one Service answer any request). Where the default backend keeps them
// (Backend::SharesMcpSessions: kubernetes, with an owner the replicas share), a session begun on
// one replica is recorded in the cluster under its key (mcp/session_key.h: a digest, never the
// id), with its tenant, and its sandbox is labelled with that key. Another replica that is asked
// for an id it does not know looks the key up, checks the tenant, and makes its own copy of the
// session (McpSessions::Adopt), bound to the same sandbox; DELETE on any replica ends it
// everywhere. Elsewhere nothing here is used: a session is its replica's.
#pragma once

#include <string>

#include "app/server/server_context.h"
#include "base/status.h"
#include "core/backend.h"
#include "core/sandbox_manager.h"
#include "http/auth.h"

namespace agentbox {

// The backend of `manager` that keeps serve's sessions (serve's default backend, when it
// SharesMcpSessions); nullptr when sessions are each replica's own.
Backend* SharedMcpStore(ServerContext& ctx, SandboxManager& manager);

// Records a session caller began on this replica under id's key. kUnavailable (a 503: the
// session is not begun) when the cluster cannot take it.
Status RecordSharedSession(Backend& store, const Caller& caller, const std::string& id);

// Whether session `id` goes on, for caller: true when the cluster holds its record with caller's
// tenant; false when it holds none (never begun, or ended through any replica) or another
// tenant's, which the caller cannot tell apart. kUnavailable when the cluster cannot be asked.
StatusOr<bool> SharedSessionGoesOn(Backend& store, const Caller& caller, const std::string& id);

// Ends caller's session `id` everywhere: its record first (from then on no replica continues
// it), then its sandbox, whichever replica made it (removed, and forgotten by the tenant's
// registry here). The first error, after trying both.
Status EndSharedSession(ServerContext& ctx, SandboxManager& manager, Backend& store,
                        const Caller& caller, const std::string& id);

}  // namespace agentbox
