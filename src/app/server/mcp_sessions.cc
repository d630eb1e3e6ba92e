#include "app/server/mcp_sessions.h"

#include <sys/random.h>

#include <cstdlib>

namespace agentbox {
namespace {

std::string RandomSessionId() {
  unsigned char bytes[16] = {};
  // getrandom of 16 bytes does not fail once the pool is initialized (long before a server).
  if (::getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes)) std::abort();
  std::string id;
  for (unsigned char b : bytes) {
    id += "0123456789abcdef"[b >> 4];
    id += "0123456789abcdef"[b & 15];
  }
  return id;
}

}  // namespace

std::string McpSessions::Add(const std::string& tenant, std::shared_ptr<McpServer> server) {
  std::string id = RandomSessionId();
  std::lock_guard<std::mutex> lock(mutex_);
  sessions_[id] = Session{tenant, std::move(server)};
  return id;
}

std::shared_ptr<McpServer> McpSessions::Get(const std::string& id, const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.tenant != tenant) return nullptr;
  return it->second.server;
}

bool McpSessions::Remove(const std::string& id, const std::string& tenant) {
  std::shared_ptr<McpServer> doomed;  // released outside the lock: it may remove a sandbox
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.tenant != tenant) return false;
    doomed = std::move(it->second.server);
    sessions_.erase(it);
  }
  doomed->CancelAll();
  return true;
}

void McpSessions::Clear() {
  std::map<std::string, Session> doomed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    doomed.swap(sessions_);
  }
  for (auto& [id, session] : doomed) session.server->CancelAll();
}

}  // namespace agentbox
