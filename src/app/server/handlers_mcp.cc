// POST/GET/DELETE /mcp: the MCP Streamable HTTP transport over McpServer (app/mcp/mcp_server.h).
//
// Two eras on one endpoint. 2025 revisions: a session starts with an "initialize" request
// without an Mcp-Session-Id header; the answer carries the new id, which every later request of
// the session sends. One session is one McpServer (and at most one sandbox of its own); DELETE
// ends it. 2026-07-28: no session; each request carries its version in _meta and in headers,
// and is served by its tenant's stateless McpServer (mcp_sessions.h).
//
// A POST holding a request gets, when its Accept names text/event-stream, an SSE stream: each
// notification the server sends while handling it (progress), then its response, then the end
// of the stream. Otherwise it gets one JSON object, and the notifications are dropped: with no
// GET stream there is nowhere else to send them.
//
// A tools/call in flight ends early, its command's process tree killed, on notifications/cancelled
// POSTed on another connection of the session, when its own client hangs up, or at shutdown. A
// cancelled request then gets no response on its SSE stream, as over stdio.
//
// On a backend that shares sessions between serve's replicas (mcp_shared.h), a 2025 session is
// the cluster's: begun on one replica, it goes on on any (each makes its copy on first use, bound
// to the session's one sandbox); every request checks that it still goes on (one read of its
// record), and DELETE on any replica ends it everywhere.
#include <optional>
#include <string_view>

#include "app/server/mcp_sessions.h"
#include "app/server/mcp_shared.h"
#include "app/server/sandbox_creator.h"
#include "app/server/server_context.h"
#include "app/server/shared_stream.h"
#include "app/server/tenant_quota.h"
#include "http/http_status.h"
#include "mcp/jsonrpc.h"
#include "mcp/modern_request.h"
#include "mcp/protocol.h"
#include "mcp/session_key.h"
#include "mcp/streamable_http.h"

namespace agentbox {
namespace {

using nlohmann::json;
namespace mcp = agentbox::mcp;

// The answer of a cancelled request on a plain-JSON POST. MCP sends no response for a cancelled
// request, but an HTTP request needs some answer: a JSON-RPC error with LSP's RequestCancelled
// code, which the client (that gave up on the id) drops.
constexpr int kRequestCancelled = -32800;

// How long a tool call's SSE stream may stay silent before it gets a keep-alive comment.
constexpr int kKeepAliveMs = 15000;

// A new McpServer for caller: its sandbox and commands count against the tenant's quotas, as
// REST's do; its sandbox gets the operator's defaults (its default backend, and limits within the
// ceilings, as a REST create's), and its tool calls the operator's ceilings. `shared_key`: the
// key of a session the replicas share (mcp_shared.h), whose sandbox carries it and may have been
// made by another replica already; "" for this replica's own.
StatusOr<std::shared_ptr<McpServer>> NewServer(ServerContext& ctx, const Caller& caller,
                                               const std::string& shared_key = "") {
  McpOptions options{"", "", ctx.self_exe,
                     std::make_shared<TenantQuota>(*ctx.tenants, caller, ctx.state_root)};
  json policy = json::object();
  AB_RETURN_IF_ERROR(ApplyServerDefaults(ctx.config, &policy));
  options.create_sandbox = [exe = ctx.self_exe, root = ctx.state_root, policy,
                            tenant = caller.tenant, shared_key] {
    return CreateSandboxInHelper(exe, root, policy, "", {tenant, "", shared_key});
  };
  if (!shared_key.empty()) {
    options.find_own_sandbox = [tenant = caller.tenant,
                                shared_key](SandboxManager& manager) -> StatusOr<std::string> {
      AB_ASSIGN_OR_RETURN(std::optional<SandboxStatus> found,
                          manager.FindMcpSessionSandbox(tenant, shared_key));
      return found ? found->record.id : "";
    };
  }
  options.max_timeout_seconds = ctx.config.limits.Get("timeout").max;
  options.max_output_limit = static_cast<uint64_t>(ctx.config.limits.Get("output_limit").max);
  options.bash_output_chars = static_cast<size_t>(ctx.config.mcp_bash_output_chars);
  // Counted as REST's are: each tool call, and each command one ran as an exec.
  options.on_tool_call = [metrics = &ctx.metrics, tenant = caller.tenant](const std::string& tool,
                                                                          bool is_error) {
    metrics->RecordMcpToolCall(tenant, tool, is_error);
  };
  options.on_command = [metrics = &ctx.metrics, tenant = caller.tenant](const std::string&,
                                                                        const ExecResult& result) {
    metrics->RecordExec(tenant, ExitReasonName(result.reason), result.duration_ms / 1000);
  };
  return std::make_shared<McpServer>(std::move(options));
}

Status NoSession(const std::string& id) { return NotFound("no MCP session \"" + id + "\""); }

// A new session of the caller (initialize), recorded for the other replicas when they share
// sessions (a 503, and no session, when the cluster cannot take it).
StatusOr<std::shared_ptr<McpServer>> BeginSession(ServerContext& ctx, Exchange& ex, Backend* shared,
                                                  const std::string& id) {
  AB_ASSIGN_OR_RETURN(std::shared_ptr<McpServer> server,
                      NewServer(ctx, ex.caller, shared ? mcp::SessionKey(id) : ""));
  AB_RETURN_IF_ERROR(ctx.mcp->Add(ex.caller, id, server, shared != nullptr));
  if (!shared) return server;
  if (Status recorded = RecordSharedSession(*shared, ex.caller, id); !recorded.ok()) {
    (void)ctx.mcp->Remove(id, ex.caller.tenant);
    return recorded;
  }
  return server;
}

// A shared session's request: it must still go on (ended through another replica: this copy is
// dropped, 404); a replica that has no copy yet makes one, bound to the session's sandbox.
StatusOr<std::shared_ptr<McpServer>> ContinueShared(ServerContext& ctx, Exchange& ex,
                                                    Backend& shared, const std::string& id) {
  std::shared_ptr<McpServer> server = ctx.mcp->Get(id, ex.caller.tenant);
  AB_ASSIGN_OR_RETURN(bool goes_on, SharedSessionGoesOn(shared, ex.caller, id));
  if (!goes_on) {
    if (server) (void)ctx.mcp->Remove(id, ex.caller.tenant);
    return NoSession(id);
  }
  if (server) return server;
  AB_ASSIGN_OR_RETURN(server, NewServer(ctx, ex.caller, mcp::SessionKey(id)));
  server = ctx.mcp->Adopt(ex.caller, id, std::move(server));
  if (!server) return NoSession(id);
  return server;
}

// The session a legacy POST belongs to; its initialize makes one when it names none (429 when
// the tenant holds all the sessions it may).
StatusOr<std::shared_ptr<McpServer>> SessionFor(ServerContext& ctx, Exchange& ex,
                                                bool is_initialize, std::string* session_id) {
  *session_id = ex.request.Header("mcp-session-id");
  SandboxManager manager = ctx.Manager();
  Backend* shared = SharedMcpStore(ctx, manager);
  if (session_id->empty()) {
    if (!is_initialize) {
      return InvalidArgument(
          "no Mcp-Session-Id: the first message must be an initialize request (2025 revisions), "
          "or the request must carry _meta[\"io.modelcontextprotocol/protocolVersion\"] "
          "(2026-07-28)");
    }
    *session_id = McpSessions::NewId();
    return BeginSession(ctx, ex, shared, *session_id);
  }
  if (shared) return ContinueShared(ctx, ex, *shared, *session_id);
  auto server = ctx.mcp->Get(*session_id, ex.caller.tenant);
  if (!server) return NoSession(*session_id);
  return server;
}

// The access log's view of a POST: the JSON-RPC method of each message and, for a tools/call, the
// tool; never its arguments (a command line may hold a secret) nor the session id (it is one).
json AuditOf(const json& message) {
  json methods = json::array(), tools = json::array();
  auto note = [&](const json& m) {
    if (!m.is_object() || !m.contains("method") || !m["method"].is_string()) return;
    methods.push_back(m["method"]);
    if (m["method"] == "tools/call" && m.contains("params") && m["params"].is_object() &&
        m["params"].contains("name") && m["params"]["name"].is_string()) {
      tools.push_back(m["params"]["name"]);
    }
  };
  if (message.is_array()) {
    for (const json& m : message) note(m);
  } else {
    note(message);
  }
  json audit = json::object();
  if (methods.size() == 1) audit["rpc"] = methods[0];
  if (methods.size() > 1) audit["rpc"] = methods;
  if (tools.size() == 1) audit["tool"] = tools[0];
  if (tools.size() > 1) audit["tool"] = tools;
  return audit;
}

// What notifications/cancelled would do for each tools/call of a POST whose client is gone.
std::function<void()> CancelCalls(std::shared_ptr<McpServer> server, std::vector<json> ids) {
  return [server = std::move(server), ids = std::move(ids)] {
    for (const json& id : ids) {
      (void)server->Handle(
          mcp::MakeNotification("notifications/cancelled",
                                {{"requestId", id}, {"reason", "the HTTP client went away"}}),
          {});
    }
  };
}

json CancelledAnswer(const json& message) {
  json id = message.is_object() && message.contains("id") ? message["id"] : json(nullptr);
  return mcp::MakeError(id, kRequestCancelled, "Request cancelled");
}

// Answers a POST that holds at least one request. A tool call's answer is streamed when the
// client accepts it; any other request is answered as one JSON object, whose HTTP status is
// 200 (2025 revisions) or, for a 2026-07-28 request, the one its JSON-RPC error calls for.
void AnswerRequests(ServerContext& ctx, Exchange& ex, const std::shared_ptr<McpServer>& server,
                    const json& message, const mcp::PostedMessages& posted, HeaderList headers) {
  const bool stream = mcp::AcceptsEventStream(ex.request.Header("accept")) &&
                      (!posted.is_modern || !posted.tool_call_ids.empty());
  SharedStream sse(ex);
  // A tool call must end when nobody waits for it any more, as a REST exec does; and its stream,
  // silent while the command is, gets a comment now and then so that clients and proxies do not
  // drop it as idle (undici, the fetch of Node.js, gives up after 300 s without a byte).
  std::optional<HangupWatch> watch;
  if (!posted.tool_call_ids.empty()) {
    watch.emplace(
        ex.conn.fd(), ctx.abort_fd, CancelCalls(server, posted.tool_call_ids),
        stream ? std::function<void()>([&sse] { sse.KeepAlive(mcp::kSseKeepAlive); }) : nullptr,
        kKeepAliveMs);
    if (!watch->ok()) {
      return ex.ReplyError(
          Unavailable("the server is out of file descriptors or threads; retry later"));
    }
  }
  // X-Accel-Buffering: no keeps a proxy (nginx) from holding the events back.
  headers.push_back({"X-Accel-Buffering", "no"});
  if (stream && !sse.Begin(200, "text/event-stream", headers)) return;
  auto send = [&sse](const json& out) { sse.Send(mcp::SseMessageEvent(out)); };
  std::optional<json> answer =
      server->Handle(message, stream ? std::function<void(const json&)>(send) : nullptr);
  watch.reset();  // the calls are over: a hangup from now on has nothing to cancel
  if (!stream) {
    const json body = answer ? *answer : CancelledAnswer(message);
    return ex.ReplyJson(posted.is_modern ? mcp::ModernHttpStatus(body) : 200, body, headers);
  }
  if (answer) {
    for (const json& out : mcp::AnswerMessages(*answer)) sse.Send(mcp::SseMessageEvent(out));
  }
  sse.End();
}

// A 2026-07-28 request: no session. Its headers must mirror its body, its envelope must name a
// version we speak (both 400 otherwise, before anything runs); it is served by its tenant's
// stateless server, and an Mcp-Session-Id it carries is ignored, as the revision says.
void HandleModernPost(ServerContext& ctx, Exchange& ex, const json& message,
                      const mcp::PostedMessages& posted) {
  // In the order 2026-07-28's checks expect: a whole envelope (-32602), headers that mirror it
  // (-32020), a version we speak (-32022); each 400, before anything runs.
  const json params = message.value("params", json::object());
  if (auto invalid = mcp::ModernEnvelopeError(message["id"], params)) {
    return ex.ReplyJson(400, *invalid);
  }
  auto header = [&ex](std::string_view name) { return ex.request.Header(std::string(name)); };
  if (auto mismatch = mcp::CheckModernHeaders(message, header)) {
    return ex.ReplyJson(400, *mismatch);
  }
  json error;
  if (!mcp::ReadModernRequest(message["id"], params, &error)) return ex.ReplyJson(400, error);
  auto server = ctx.mcp->Stateless(ex.caller, [&] { return NewServer(ctx, ex.caller); });
  if (!server.ok()) return ex.ReplyError(server.status());
  const std::string key = McpSessions::StatelessKey(ex.caller.tenant);
  struct Touch {
    McpSessions& sessions;
    const std::string& id;
    ~Touch() { sessions.Release(id); }
  } touch{*ctx.mcp, key};
  mcp::PostedMessages modern = posted;
  modern.is_modern = true;  // also when only its header said so
  AnswerRequests(ctx, ex, *server, message, modern, {});
  if (std::string id = (*server)->sandbox_id(); !id.empty()) ex.audit["sandbox"] = id;
}

}  // namespace

void HandleMcpPost(ServerContext& ctx, Exchange& ex) {
  // A body that is no JSON (or nested too deep) is answered as JSON-RPC says, -32700 with a
  // null id, not with the REST error shape: the client is a JSON-RPC client.
  bool parsed = false;
  json message = mcp::ParseJsonOrError(ex.request.body, &parsed);
  if (!parsed) return ex.ReplyJson(400, message);
  const mcp::PostedMessages posted = mcp::InspectPosted(message);
  ex.audit = AuditOf(message);
  // A 2026-07-28 request: _meta says so, or (a request without it, outside any session) its
  // MCP-Protocol-Version header names no 2025 revision, and its envelope is then refused.
  const std::string version_header = ex.request.Header("mcp-protocol-version");
  if (posted.is_modern ||
      (message.is_object() && posted.has_request && ex.request.Header("mcp-session-id").empty() &&
       !version_header.empty() && !mcp::IsLegacyProtocolVersion(version_header))) {
    return HandleModernPost(ctx, ex, message, posted);
  }
  // 2026-07-28 defines no notification a client POSTs (closing a stream cancels its call); one
  // sent anyway, outside any 2025 session, is accepted and dropped, as the transport allows.
  if (!posted.has_request && ex.request.Header("mcp-session-id").empty() &&
      mcp::IsModernProtocolVersion(version_header)) {
    return ex.Reply(202, "", "");
  }
  if (!posted.is_initialize) {
    Status version = mcp::CheckProtocolVersionHeader(ex.request.Header("mcp-protocol-version"));
    if (!version.ok()) return ex.ReplyError(version);
  }
  std::string session_id;
  auto server = SessionFor(ctx, ex, posted.is_initialize, &session_id);
  if (!server.ok()) return ex.ReplyError(server.status());
  // The request's end is the session's last use: a stale session may be ended for a new one.
  struct Touch {
    McpSessions& sessions;
    const std::string& id;
    ~Touch() { sessions.Release(id); }
  } touch{*ctx.mcp, session_id};
  HeaderList headers = {{"Mcp-Session-Id", session_id}};
  if (posted.has_request) {
    AnswerRequests(ctx, ex, *server, message, posted, headers);
    if (std::string id = (*server)->sandbox_id(); !id.empty()) ex.audit["sandbox"] = id;
    return;
  }
  // Notifications and responses are accepted without a body; what is neither (not a JSON-RPC
  // message at all) is refused with 400 and its JSON-RPC error.
  auto answer = (*server)->Handle(message, nullptr);
  if (answer) return ex.ReplyJson(400, *answer, std::move(headers));
  ex.Reply(202, "", "", std::move(headers));
}

void HandleMcpGet(ServerContext&, Exchange& ex) {
  // The specification lets a server without server-initiated messages answer 405 here; every
  // message of ours belongs to a request and goes on that request's SSE stream.
  ex.Reply(405, "application/json",
           ErrorBody(InvalidArgument(
               "GET /mcp: this server offers no server-initiated SSE stream; POST a request with "
               "Accept: text/event-stream to get its notifications")),
           {{"Allow", "POST, DELETE"}});
}

void HandleMcpDelete(ServerContext& ctx, Exchange& ex) {
  std::string session_id = ex.request.Header("mcp-session-id");
  Status version = mcp::CheckProtocolVersionHeader(ex.request.Header("mcp-protocol-version"));
  if (!version.ok()) return ex.ReplyError(version);
  if (session_id.empty()) return ex.ReplyError(InvalidArgument("DELETE /mcp needs Mcp-Session-Id"));
  SandboxManager manager = ctx.Manager();
  if (Backend* shared = SharedMcpStore(ctx, manager)) {
    auto goes_on = SharedSessionGoesOn(*shared, ex.caller, session_id);
    if (!goes_on.ok()) return ex.ReplyError(goes_on.status());
    if (*goes_on) {
      Status ended = EndSharedSession(ctx, manager, *shared, ex.caller, session_id);
      (void)ctx.mcp->Remove(session_id, ex.caller.tenant);  // this replica's copy, if any
      if (!ended.ok()) return ex.ReplyError(ended);
      return ex.Reply(204, "", "");
    }
    (void)ctx.mcp->Remove(session_id, ex.caller.tenant);  // ended elsewhere: a stale copy
    return ex.ReplyError(NoSession(session_id));
  }
  if (!ctx.mcp->Remove(session_id, ex.caller.tenant)) return ex.ReplyError(NoSession(session_id));
  ex.Reply(204, "", "");
}

}  // namespace agentbox
