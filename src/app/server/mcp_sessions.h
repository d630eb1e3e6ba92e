// The MCP sessions of `agentbox serve`: one McpServer per Mcp-Session-Id, each owned by the
// tenant that made it (another tenant's id is as unknown as a made-up one).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "app/mcp/mcp_server.h"

namespace agentbox {

class McpSessions {
 public:
  // Stores a new session under a fresh random id (128 bits, hex) and returns the id.
  std::string Add(const std::string& tenant, std::shared_ptr<McpServer> server);
  // The session, or nullptr when unknown or another tenant's. The caller's reference keeps it
  // alive through a request even if it is removed meanwhile.
  std::shared_ptr<McpServer> Get(const std::string& id, const std::string& tenant);
  // Ends a session: its tool calls in flight are cancelled (their process trees killed), and
  // its sandbox is removed once the last request using it has finished (here, when none does).
  // False when unknown or another tenant's.
  bool Remove(const std::string& id, const std::string& tenant);
  // Ends every session (server shutdown).
  void Clear();

 private:
  struct Session {
    std::string tenant;
    std::shared_ptr<McpServer> server;
  };
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;
};

}  // namespace agentbox
