// How many MCP sessions (Streamable HTTP, `agentbox serve`) a tenant may hold at once, and which
// stale one an `initialize` over that cap may end to make room. Pure: the sessions themselves
// are in app/server/mcp_sessions.cc.
//
// Every session may create a sandbox, so a tenant may hold as many sessions as it may have
// sandboxes (`max_sandboxes`; 0: unlimited). Sessions are ended by DELETE /mcp, but a client
// that crashes never sends it; so when the cap is reached, the session idle longest, if idle
// for at least `stale_after` and serving no request, is ended for the new one. Otherwise the
// new session is refused with QuotaExceeded (HTTP 429).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "http/auth.h"

namespace agentbox::mcp {

using SessionClock = std::chrono::steady_clock;

// One existing session of the tenant, as the cap sees it.
struct SessionUse {
  std::string id;
  bool busy = false;                  // a request of the session is being served right now
  SessionClock::time_point last_use;  // when its last request began or ended
};

// The sessions caller's tenant may hold at once; 0: unlimited.
uint32_t MaxSessions(const Caller& caller);

// What to do with a new session of `caller`, whose tenant holds `sessions`: admit it as is
// (nullopt), admit it once the session of the returned id has been ended, or refuse it
// (QuotaExceeded, whose message names the quota and what frees a session).
StatusOr<std::optional<std::string>> AdmitSession(const Caller& caller,
                                                  const std::vector<SessionUse>& sessions,
                                                  SessionClock::time_point now,
                                                  SessionClock::duration stale_after);

// The sessions to end now whatever the cap: idle for at least `idle_after` and serving no
// request. Clients end sessions without DELETE /mcp as a matter of course (the TypeScript SDK's
// close() sends none, nor does the Inspector), and each holds a sandbox until it is ended.
std::vector<std::string> IdleSessions(const std::vector<SessionUse>& sessions,
                                      SessionClock::time_point now,
                                      SessionClock::duration idle_after);

}  // namespace agentbox::mcp
