// POST/DELETE /mcp: MCP Streamable HTTP over McpServer (app/mcp/mcp_server.h).
//
// A session starts with an "initialize" request without an Mcp-Session-Id header; the answer
// carries the new id, which every later request of the session sends. One session is one
// McpServer (and at most one sandbox of its own); DELETE ends it. Answers are plain JSON:
// progress notifications are not streamed (see docs/api.md).
#include <sys/random.h>

#include <map>
#include <mutex>

#include "app/mcp/mcp_server.h"
#include "app/server/server_context.h"

namespace agentbox {

class McpSessions {
 public:
  struct Session {
    std::string tenant;
    std::shared_ptr<McpServer> server;
  };

  std::string Add(Session session) {
    unsigned char bytes[16] = {};
    if (::getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes)) std::abort();
    std::string id;
    for (unsigned char b : bytes)
      id += "0123456789abcdef"[b >> 4], id += "0123456789abcdef"[b & 15];
    std::lock_guard<std::mutex> lock(mutex_);
    sessions_[id] = std::move(session);
    return id;
  }
  std::shared_ptr<McpServer> Get(const std::string& id, const std::string& tenant) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.tenant != tenant) return nullptr;
    return it->second.server;
  }
  bool Remove(const std::string& id, const std::string& tenant) {
    std::shared_ptr<McpServer> doomed;  // destroyed outside the lock: it removes a sandbox
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.tenant != tenant) return false;
    doomed = std::move(it->second.server);
    sessions_.erase(it);
    return true;
  }
  void Clear() {
    std::map<std::string, Session> doomed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      doomed.swap(sessions_);
    }
  }

 private:
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;
};

std::shared_ptr<McpSessions> MakeMcpSessions() { return std::make_shared<McpSessions>(); }
void EndMcpSessions(McpSessions& sessions) { sessions.Clear(); }

void HandleMcpPost(ServerContext& ctx, Exchange& ex) {
  auto message = nlohmann::json::parse(ex.request.body, nullptr, false);
  if (message.is_discarded()) {
    return ex.ReplyError(InvalidArgument("malformed JSON in the request body"));
  }
  std::string session_id = ex.request.Header("mcp-session-id");
  std::shared_ptr<McpServer> server;
  HeaderList headers;
  if (session_id.empty()) {
    if (!message.is_object() || message.value("method", "") != "initialize") {
      return ex.ReplyError(
          InvalidArgument("no Mcp-Session-Id: the first message must be "
                          "an initialize request"));
    }
    server = std::make_shared<McpServer>(McpOptions{"", "", ctx.self_exe});
    session_id = ctx.mcp->Add({ex.caller.tenant, server});
  } else if (!(server = ctx.mcp->Get(session_id, ex.caller.tenant))) {
    return ex.ReplyError(NotFound("no MCP session " + session_id));
  }
  headers.emplace_back("Mcp-Session-Id", session_id);
  auto answer = server->Handle(message, [](const nlohmann::json&) {});
  if (!answer) return ex.Reply(202, "", "", headers);
  ex.ReplyJson(200, *answer, headers);
}

void HandleMcpDelete(ServerContext& ctx, Exchange& ex) {
  std::string session_id = ex.request.Header("mcp-session-id");
  if (session_id.empty() || !ctx.mcp->Remove(session_id, ex.caller.tenant)) {
    return ex.ReplyError(NotFound("no MCP session \"" + session_id + "\""));
  }
  ex.Reply(204, "", "");
}

}  // namespace agentbox
