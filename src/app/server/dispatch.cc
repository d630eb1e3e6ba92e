// Admission of a request head, and the handler a worker runs for it.
#include "app/server/dispatch.h"

#include <chrono>
#include <exception>

#include "http/front_door.h"
#include "http/http_status.h"
#include "http/openapi.h"

namespace agentbox {
namespace {

using Handler = void (*)(ServerContext&, Exchange&);

void HandleHealthz(ServerContext&, Exchange& ex) { ex.Reply(200, "text/plain", "ok\n"); }

// A tenant sees its own: its sandboxes, execs and requests. Without tokens every caller is the
// operator's, and sees the whole server.
void HandleMetrics(ServerContext& ctx, Exchange& ex) {
  size_t live = 0;
  for (const SandboxStatus& s : ctx.Manager().List()) {
    if (s.state == SandboxState::kRunning && ctx.tenants->Owns(ex.caller, s.record)) ++live;
  }
  ex.Reply(200, "text/plain; version=0.0.4", ctx.metrics.Of(ex.caller.tenant).Render(live));
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
    case RouteId::kExecTty:
      return HandleExecTty;
    case RouteId::kListProcesses:
      return HandleListProcesses;
    case RouteId::kGetProcess:
      return HandleGetProcess;
    case RouteId::kProcessLogs:
      return HandleProcessLogs;
    case RouteId::kWaitProcess:
      return HandleWaitProcess;
    case RouteId::kKillProcess:
      return HandleKillProcess;
    case RouteId::kWriteProcessStdin:
      return HandleWriteProcessStdin;
    case RouteId::kReadFile:
      return HandleReadFile;
    case RouteId::kWriteFile:
      return HandleWriteFile;
    case RouteId::kDeleteFile:
      return HandleDeleteFile;
    case RouteId::kEditFile:
      return HandleEditFile;
    case RouteId::kListSnapshots:
      return HandleListSnapshots;
    case RouteId::kCreateSnapshot:
      return HandleCreateSnapshot;
    case RouteId::kDeleteSnapshot:
      return HandleDeleteSnapshot;
    case RouteId::kRestoreSnapshot:
      return HandleRestoreSnapshot;
    case RouteId::kDiffSnapshot:
      return HandleDiffSnapshot;
    case RouteId::kForkSnapshot:
      return HandleForkSnapshot;
    case RouteId::kSessionLog:
      return HandleSessionLog;
    case RouteId::kReadArchive:
      return HandleReadArchive;
    case RouteId::kWriteArchive:
      return HandleWriteArchive;
    case RouteId::kMcpPost:
      return HandleMcpPost;
    case RouteId::kMcpGet:
      return HandleMcpGet;
    case RouteId::kMcpDelete:
      return HandleMcpDelete;
  }
  return nullptr;
}

}  // namespace

std::variant<Admitted, Rejection> AdmitRequest(const ServerContext& ctx, const HttpRequest& req) {
  std::string allow;
  auto match = MatchRoute(req.method, req.path, &allow);
  if (!match.ok()) {
    const bool not_found = match.status().code() == StatusCode::kNotFound;
    return Rejection{not_found ? 404 : 405, match.status(),
                     not_found ? HeaderList{} : HeaderList{{"Allow", allow}}};
  }
  if (auto refusal = CheckFrontDoor(req, *match->route, ctx.front_door)) {
    return Rejection{refusal->http_status, refusal->why, {}};
  }
  Caller caller;
  if (ctx.tokens && match->route->needs_auth) {
    auto who = ctx.tokens->Authenticate(req.Header("authorization"));
    if (!who.ok()) return Rejection{401, who.status(), {{"WWW-Authenticate", "Bearer"}}};
    caller = *who;
  }
  const uint64_t max_body = MaxBodyBytes(*match->route);
  if (req.content_length && *req.content_length > max_body) {
    return Rejection{
        413,
        ResourceExhausted("request body larger than " + std::to_string(max_body) + " bytes"),
        {}};
  }
  return Admitted{std::move(*match), std::move(caller)};
}

bool RunsLong(const HttpRequest& req, const Route& route) {
  switch (route.id) {
    case RouteId::kExec:
    case RouteId::kExecTty:
    case RouteId::kVerifySandbox:
    case RouteId::kProcessLogs:  // with follow, for as long as the process runs
    case RouteId::kWaitProcess:
    // A walk of the workspace (restore, diff) or a sandbox's start (fork): seconds, at worst.
    case RouteId::kRestoreSnapshot:
    case RouteId::kDiffSnapshot:
    case RouteId::kForkSnapshot:
      return true;
    case RouteId::kMcpPost:
      // A cheap look, not a parse: a false "long" only costs the request a place in the other
      // pool; a tools/call spelled with escapes runs in the short pool, bounded all the same.
      return req.body.find("tools/call") != std::string::npos;
    default:
      return false;
  }
}

bool RunHandler(ServerContext& ctx, int fd, const HttpRequest& req, const Admitted& admitted) {
  const auto start = std::chrono::steady_clock::now();
  HttpConnection conn(fd);
  Exchange ex{req, admitted.match, admitted.caller, conn, req.keep_alive};
  try {
    HandlerFor(admitted.match.route->id)(ctx, ex);
  } catch (const std::exception& e) {
    // A bug must cost one request, never the server and every other client's commands.
    if (ex.status == 0) ex.ReplyError(Internal(std::string("internal error: ") + e.what()));
    ex.keep_alive = false;
  }
  ctx.metrics.RecordRequest(ex.caller.tenant, ex.status);
  if (ctx.access_log) {
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    AccessRecord record{ex.caller.tenant, req.method,   req.path,           "",
                        ex.status,        took.count(), std::move(ex.audit)};
    if (auto id = admitted.match.params.find("id"); id != admitted.match.params.end()) {
      record.sandbox = id->second;
    }
    if (record.detail.contains("sandbox")) {
      record.sandbox = record.detail["sandbox"].get<std::string>();
      record.detail.erase("sandbox");
    }
    ctx.access_log->Write(record);
  }
  return ex.keep_alive && !conn.broken();
}

std::string ErrorResponse(int status, const Status& why, HeaderList headers, bool keep_alive) {
  headers.emplace_back("Content-Type", "application/json");
  const std::string body = ErrorBody(why);
  return ResponseHead(status, headers, body.size(), keep_alive) + body;
}

}  // namespace agentbox
