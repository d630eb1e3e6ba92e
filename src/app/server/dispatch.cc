// One connection's request loop: read, route, authenticate, read the body, run the handler.
#include "app/server/dispatch.h"

#include <exception>

#include "core/http/http_status.h"
#include "core/http/openapi.h"

namespace agentbox {
namespace {

using Handler = void (*)(ServerContext&, Exchange&);

void HandleHealthz(ServerContext&, Exchange& ex) { ex.Reply(200, "text/plain", "ok\n"); }

void HandleMetrics(ServerContext& ctx, Exchange& ex) {
  size_t live = 0;
  for (const SandboxStatus& s : ctx.Manager().List()) {
    if (s.state == SandboxState::kRunning) ++live;
  }
  ex.Reply(200, "text/plain; version=0.0.4", ctx.metrics.Render(live));
}

void HandleOpenApi(ServerContext&, Exchange& ex) { ex.ReplyJson(200, OpenApiDocument()); }

Handler HandlerFor(RouteId id) {
  switch (id) {
    case RouteId::kHealthz:
      return HandleHealthz;
    case RouteId::kMetrics:
      return HandleMetrics;
    case RouteId::kOpenApi:
      return HandleOpenApi;
    case RouteId::kListSandboxes:
      return HandleListSandboxes;
    case RouteId::kCreateSandbox:
      return HandleCreateSandbox;
    case RouteId::kGetSandbox:
      return HandleGetSandbox;
    case RouteId::kDeleteSandbox:
      return HandleDeleteSandbox;
    case RouteId::kVerifySandbox:
      return HandleVerifySandbox;
    case RouteId::kExec:
      return HandleExec;
    case RouteId::kReadFile:
      return HandleReadFile;
    case RouteId::kWriteFile:
      return HandleWriteFile;
    case RouteId::kDeleteFile:
      return HandleDeleteFile;
    case RouteId::kEditFile:
      return HandleEditFile;
    case RouteId::kMcpPost:
      return HandleMcpPost;
    case RouteId::kMcpGet:
      return HandleMcpGet;
    case RouteId::kMcpDelete:
      return HandleMcpDelete;
  }
  return nullptr;
}

// An answer before the body was read: the unread body would be taken for the next request,
// so the connection closes after it.
void RejectEarly(HttpConnection& conn, int status, const Status& error, HeaderList headers = {}) {
  headers.emplace_back("Content-Type", "application/json");
  conn.SendResponse(status, headers, ErrorBody(error), /*keep_alive=*/false);
}

int Authorize(ServerContext& ctx, const Route& route, const HttpRequest& req, Caller* caller) {
  if (!ctx.tokens || !route.needs_auth) return 0;
  auto who = ctx.tokens->Authenticate(req.Header("authorization"));
  if (!who.ok()) return 401;
  *caller = *who;
  return 0;
}

// Runs the matched route; false when the connection must close afterwards.
bool ServeRoute(ServerContext& ctx, HttpConnection& conn, HttpRequest& req, const RouteMatch& match,
                const Caller& caller) {
  Status body = conn.ReadBody(&req, MaxBodyBytes(*match.route));
  if (!body.ok()) {
    RejectEarly(conn, HttpStatusFor(body), body);
    ctx.metrics.RecordRequest(HttpStatusFor(body));
    return false;
  }
  Exchange ex{req, match, caller, conn, req.keep_alive};
  try {
    HandlerFor(match.route->id)(ctx, ex);
  } catch (const std::exception& e) {
    // A bug must cost one request, never the server and every other client's commands.
    if (ex.status == 0) ex.ReplyError(Internal(std::string("internal error: ") + e.what()));
    ex.keep_alive = false;
  }
  ctx.metrics.RecordRequest(ex.status);
  return ex.keep_alive && !conn.broken();
}

bool ServeRequest(ServerContext& ctx, HttpConnection& conn, HttpRequest& req) {
  std::string allow;
  auto match = MatchRoute(req.method, req.path, &allow);
  if (!match.ok()) {
    bool not_found = match.status().code() == StatusCode::kNotFound;
    int status = not_found ? 404 : 405;
    RejectEarly(conn, status, match.status(),
                not_found ? HeaderList{} : HeaderList{{"Allow", allow}});
    ctx.metrics.RecordRequest(status);
    return false;
  }
  Caller caller;
  if (Authorize(ctx, *match->route, req, &caller) != 0) {
    RejectEarly(conn, 401, PermissionDenied("missing or unknown bearer token"),
                {{"WWW-Authenticate", "Bearer"}});
    ctx.metrics.RecordRequest(401);
    return false;
  }
  return ServeRoute(ctx, conn, req, *match, caller);
}

}  // namespace

void ServeConnection(ServerContext& ctx, UniqueFd fd, int wake_fd,
                     const std::atomic<bool>& draining) {
  HttpConnection conn(std::move(fd), wake_fd);
  for (;;) {
    auto head = conn.ReadHead();
    if (!head.ok()) {
      bool too_big = head.status().code() == StatusCode::kResourceExhausted;
      RejectEarly(conn, too_big ? 431 : 400, head.status());
      ctx.metrics.RecordRequest(too_big ? 431 : 400);
      return;
    }
    if (!head->has_value()) return;
    HttpRequest& req = **head;
    // While draining, every answer says "Connection: close" so clients go elsewhere; at the
    // connection limit, so the clients waiting to connect get their turn.
    if (draining.load() || ctx.at_connection_limit.load()) req.keep_alive = false;
    if (!ServeRequest(ctx, conn, req) || draining.load()) return;
  }
}

}  // namespace agentbox
