// The MCP sessions of `agentbox serve`: one McpServer per Mcp-Session-Id, each owned by the
// tenant that made it (another tenant's id is as unknown as a made-up one). A tenant holds at
// most as many sessions as its max_sandboxes allows (mcp/session_cap.h).
#pragma once

#include <chrono>
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

  // Stores a new session of caller's tenant under a fresh random id (128 bits, hex) and returns
  // the id. QuotaExceeded (429) when the tenant holds all the sessions it may and none is
  // stale; a stale one is ended to make room.
  StatusOr<std::string> Add(const Caller& caller, std::shared_ptr<McpServer> server);
  // The session, or nullptr when unknown or another tenant's. The caller's reference keeps it
  // alive through a request even if it is removed meanwhile; Release marks the request's end.
  std::shared_ptr<McpServer> Get(const std::string& id, const std::string& tenant);
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
  };
  std::vector<mcp::SessionUse> UsesLocked(const std::string& tenant) const;

  const mcp::SessionClock::duration stale_after_;
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;
};

}  // namespace agentbox
