#include "mcp/session_cap.h"

#include "http/http_status.h"
#include "spec/units.h"

namespace agentbox::mcp {

uint32_t MaxSessions(const Caller& caller) { return caller.max_sandboxes; }

StatusOr<std::optional<std::string>> AdmitSession(const Caller& caller,
                                                  const std::vector<SessionUse>& sessions,
                                                  SessionClock::time_point now,
                                                  SessionClock::duration stale_after) {
  const uint32_t cap = MaxSessions(caller);
  if (cap == 0 || sessions.size() < cap) return std::optional<std::string>();
  const SessionUse* stalest = nullptr;
  for (const SessionUse& s : sessions) {
    if (s.busy || now - s.last_use < stale_after) continue;
    if (!stalest || s.last_use < stalest->last_use) stalest = &s;
  }
  // Over the cap (the tenant's quota may have shrunk since) one stale session is still only one
  // slot: the new session is admitted only if that brings the count under the cap.
  if (stalest && sessions.size() - 1 < cap) return std::optional<std::string>(stalest->id);
  // The idle period is the server config's mcp_session_idle_timeout: whole minutes by default.
  const double seconds = std::chrono::duration<double>(stale_after).count();
  const std::string period = seconds >= 60 && static_cast<int64_t>(seconds) % 60 == 0
                                 ? std::to_string(static_cast<int64_t>(seconds) / 60) + " minutes"
                                 : FormatSeconds(seconds) + " seconds";
  return QuotaExceeded("tenant " + caller.tenant + " may hold " + std::to_string(cap) +
                       " MCP sessions at once (one per sandbox of max_sandboxes); end one with "
                       "DELETE /mcp, or wait until one has been idle for " +
                       period);
}

std::vector<std::string> IdleSessions(const std::vector<SessionUse>& sessions,
                                      SessionClock::time_point now,
                                      SessionClock::duration idle_after) {
  std::vector<std::string> idle;
  for (const SessionUse& s : sessions) {
    if (!s.busy && now - s.last_use >= idle_after) idle.push_back(s.id);
  }
  return idle;
}

}  // namespace agentbox::mcp
