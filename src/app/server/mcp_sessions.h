// The MCP sessions of `agentbox serve`: one McpServer per Mcp-Session-Id (2025 revisions), each
// owned by the tenant that made it (another tenant's id is as unknown as a made-up one), and one
// stateless McpServer per tenant for 2026-07-28 requests, which carry no session: there, the
// server's state (its sandbox, tasks, output cursors) is keyed by the authorization context, as
// the revision's cacheScope "private" is. A tenant holds at most as many sessions as its
// max_sandboxes allows (mcp/session_cap.h); its stateless server counts as one of them but is
// never refused (its sandbox is, by the quota, on its first tool call). Idle ones are ended alike.
//
// A session shared with serve's other replicas (app/server/mcp_shared.h: the kubernetes backend
// with a shared owner) is only this replica's copy of it: ending it here as idle, to make room,
// or at shutdown lets go of the copy (McpServer::Detach) and leaves the session, its record and
// its sandbox to the replicas; only DELETE /mcp (the handler) ends it everywhere.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/mcp/mcp_server.h"
#include "base/status.h"
#include "http/auth.h"
#include "mcp/session_cap.h"

namespace agentbox {

class McpSessions {
 public:
  // How long a session must have been idle before a new one of its tenant, over the cap, ends it.
  static constexpr std::chrono::minutes kStaleAfter{10};

  explicit McpSessions(mcp::SessionClock::duration stale_after = kStaleAfter)
      : stale_after_(stale_after) {}

  // A fresh session id: 128 random bits, hex.
  static std::string NewId();
  // Stores a new session of caller's tenant under `id` (NewId's). QuotaExceeded (429) when the
  // tenant holds all the sessions it may and none is stale; a stale one is ended to make room.
  // `shared`: the session is the replicas' (above).
  Status Add(const Caller& caller, const std::string& id, std::shared_ptr<McpServer> server,
             bool shared = false);
  // Stores this replica's copy of a shared session another replica began, never refused by the
  // cap (the session exists already; it counts here from now on). When a concurrent request
  // stored one first, that one is returned (and `server` dropped, detached).
  std::shared_ptr<McpServer> Adopt(const Caller& caller, const std::string& id,
                                   std::shared_ptr<McpServer> server);
  // The session, or nullptr when unknown or another tenant's. The caller's reference keeps it
  // alive through a request even if it is removed meanwhile; Release marks the request's end.
  std::shared_ptr<McpServer> Get(const std::string& id, const std::string& tenant);
  // The stateless server of caller's tenant, made with `make` when it has none (or its last one
  // was ended as idle). Release(StatelessKey(tenant)) marks the request's end.
  // A failure of `make` is returned and nothing is stored.
  using MakeServer = std::function<StatusOr<std::shared_ptr<McpServer>>()>;
  StatusOr<std::shared_ptr<McpServer>> Stateless(const Caller& caller, const MakeServer& make);
  static std::string StatelessKey(const std::string& tenant) { return "stateless:" + tenant; }
  void Release(const std::string& id);
  // Ends a session: its tool calls in flight are cancelled (their process trees killed), and
  // its sandbox is removed once the last request using it has finished (here, when none does).
  // False when unknown or another tenant's.
  bool Remove(const std::string& id, const std::string& tenant);
  // Ends every session idle for stale_after with no request in flight, as Remove would; their
  // sandboxes go. Returns how many. serve calls it a few times per idle period.
  size_t EndIdle();
  // Ends every session (server shutdown).
  void Clear();
  mcp::SessionClock::duration stale_after() const { return stale_after_; }

 private:
  struct Session {
    std::string tenant;
    std::shared_ptr<McpServer> server;
    mcp::SessionClock::time_point last_use;
    bool stateless = false;  // a tenant's 2026-07-28 server: never found by Get
    bool shared = false;     // the replicas' session: let go of, not ended, but by Remove
  };
  std::vector<mcp::SessionUse> UsesLocked(const std::string& tenant) const;
  // Ends a session taken out of the map, or lets go of a shared one's copy (above).
  static void EndOrLetGo(Session& session);

  const mcp::SessionClock::duration stale_after_;
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;
};

}  // namespace agentbox
