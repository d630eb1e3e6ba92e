#include "app/server/mcp_sessions.h"

#include <algorithm>
#include <optional>

#include "sys/random_id.h"

namespace agentbox {
namespace {

// Serving a request, or running a command that became a task: never idle. Get hands out copies
// under the lock, so a count of 1 read under it means that no request holds the session now.
bool Busy(const std::shared_ptr<McpServer>& server) {
  return server.use_count() > 1 || server->has_running_task();
}

}  // namespace

std::vector<mcp::SessionUse> McpSessions::UsesLocked(const std::string& tenant) const {
  std::vector<mcp::SessionUse> uses;
  for (const auto& [id, session] : sessions_) {
    if (session.tenant != tenant) continue;
    uses.push_back({id, Busy(session.server), session.last_use});
  }
  return uses;
}

std::string McpSessions::NewId() { return RandomHexId(); }

void McpSessions::EndOrLetGo(Session& session) {
  if (session.shared) session.server->Detach();
  session.server->CancelAll();
}

Status McpSessions::Add(const Caller& caller, const std::string& id,
                        std::shared_ptr<McpServer> server, bool shared) {
  std::optional<Session> evicted;  // ended outside the lock: it may remove a sandbox
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = mcp::SessionClock::now();
    AB_ASSIGN_OR_RETURN(std::optional<std::string> stale,
                        mcp::AdmitSession(caller, UsesLocked(caller.tenant), now, stale_after_));
    if (stale) {
      auto it = sessions_.find(*stale);
      evicted = std::move(it->second);
      sessions_.erase(it);
    }
    sessions_[id] = Session{caller.tenant, std::move(server), now, false, shared};
  }
  if (evicted) EndOrLetGo(*evicted);
  return OkStatus();
}

std::shared_ptr<McpServer> McpSessions::Adopt(const Caller& caller, const std::string& id,
                                              std::shared_ptr<McpServer> server) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = mcp::SessionClock::now();
  auto [it, added] =
      sessions_.emplace(id, Session{caller.tenant, server, now, false, /*shared=*/true});
  if (!added) {
    server->Detach();  // never used: it has no sandbox, but must make none on its way out
    if (it->second.tenant != caller.tenant || it->second.stateless) return nullptr;
  }
  it->second.last_use = now;
  return it->second.server;
}

std::shared_ptr<McpServer> McpSessions::Get(const std::string& id, const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.tenant != tenant || it->second.stateless) return nullptr;
  it->second.last_use = mcp::SessionClock::now();
  return it->second.server;
}

StatusOr<std::shared_ptr<McpServer>> McpSessions::Stateless(const Caller& caller,
                                                            const MakeServer& make) {
  const std::string key = StatelessKey(caller.tenant);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sessions_.find(key);
  if (it == sessions_.end()) {
    AB_ASSIGN_OR_RETURN(std::shared_ptr<McpServer> server, make());
    it = sessions_.emplace(key, Session{caller.tenant, std::move(server), {}, true}).first;
  }
  it->second.last_use = mcp::SessionClock::now();
  return it->second.server;
}

void McpSessions::Release(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sessions_.find(id);
  if (it != sessions_.end()) it->second.last_use = mcp::SessionClock::now();
}

bool McpSessions::Remove(const std::string& id, const std::string& tenant) {
  std::shared_ptr<McpServer> doomed;  // released outside the lock: it may remove a sandbox
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.tenant != tenant || it->second.stateless) return false;
    doomed = std::move(it->second.server);
    sessions_.erase(it);
  }
  doomed->CancelAll();
  return true;
}

size_t McpSessions::EndIdle() {
  std::vector<Session> doomed;  // ended outside the lock, as in Remove
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<mcp::SessionUse> uses;
    for (const auto& [id, session] : sessions_) {
      uses.push_back({id, Busy(session.server), session.last_use});
    }
    for (const std::string& id : mcp::IdleSessions(uses, mcp::SessionClock::now(), stale_after_)) {
      auto it = sessions_.find(id);
      doomed.push_back(std::move(it->second));
      sessions_.erase(it);
    }
  }
  for (Session& session : doomed) EndOrLetGo(session);
  return doomed.size();
}

void McpSessions::Clear() {
  std::map<std::string, Session> doomed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    doomed.swap(sessions_);
  }
  for (auto& [id, session] : doomed) EndOrLetGo(session);
}

}  // namespace agentbox
