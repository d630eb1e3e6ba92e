// GET /v1/sandboxes/{id}/exec/tty: one command on a terminal of its own, over a WebSocket
// (docs/api.md, "GET /v1/sandboxes/{id}/exec/tty"). Everything that can be refused before the
// upgrade is refused with a plain HTTP status (the handshake, the sandbox, the tenant's exec slot);
// what comes later (the first message, the exec's own limits) with an error message and a close.
#include <poll.h>

#include <chrono>
#include <functional>

#include "app/server/exec_common.h"
#include "app/server/ws_terminal.h"
#include "http/http_status.h"
#include "http/terminal_messages.h"
#include "proto/exec_output.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;

// The 426 or 400 of a request that is no (valid) WebSocket upgrade.
void RefuseUpgrade(Exchange& ex, const Status& why,
                   const std::function<std::string(std::string_view)>& header) {
  const int code = ws::UpgradeRefusalStatus(header);
  HeaderList extra;
  if (code == 426) extra = {{"Upgrade", "websocket"}, {"Sec-WebSocket-Version", "13"}};
  ex.Reply(code, "application/json", ErrorBody(why), std::move(extra));
}

// The first message as an exec request on a terminal, within the operator's ceilings.
StatusOr<ExecRequest> ReadStart(ServerContext& ctx, WsTerminal& terminal,
                                const SandboxRecord& record) {
  // As a request body must arrive within body_timeout, so must this one.
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(ctx.config.body_timeout_seconds));
  AB_ASSIGN_OR_RETURN(std::string first, terminal.ReadFirst(deadline, ctx.abort_fd));
  AB_ASSIGN_OR_RETURN(TerminalStart start, ParseTerminalStart(first));
  AB_ASSIGN_OR_RETURN(ExecBody body, ExecBodyWithinLimits(ctx, start.exec_body, record, ""));
  ExecRequest request = std::move(body.request);
  request.tty = true;
  request.rows = start.size.rows;
  request.cols = start.size.cols;
  return request;
}

// True once the server's shutdown ran out of grace (abort_fd readable).
bool Aborting(int abort_fd) {
  struct pollfd pfd = {abort_fd, POLLIN, 0};
  return abort_fd >= 0 && ::poll(&pfd, 1, 0) == 1;
}

// Runs it, the client's messages typed into its terminal, its output sent as binary messages.
// The client leaving (or sending what it may not) and the server's shutdown running out of
// grace kill the command's tree, as they do a POST .../exec's.
RunOutcome RunOnTerminal(ServerContext& ctx, int client_fd, WsTerminal& terminal,
                         const SandboxRecord& record, const ExecRequest& request,
                         OutputCapture& capture, ExecCancellation& cancel) {
  const auto start = Clock::now();
  StatusOr<ExecResult> result = Internal("not run");
  {
    HangupWatch watch(client_fd, ctx.abort_fd, [&cancel] { cancel.Cancel(); });
    if (!watch.ok()) {
      return {Unavailable("the server is out of file descriptors or threads; retry later"), 0};
    }
    result = ctx.Manager().Exec(record, request, capture, -1, &cancel, &terminal);
  }
  std::chrono::duration<double> took = Clock::now() - start;
  return {std::move(result), took.count()};
}

}  // namespace

void HandleExecTty(ServerContext& ctx, Exchange& ex) {
  auto header = [&ex](std::string_view name) { return ex.request.Header(std::string(name)); };
  if (Status upgrade = ws::CheckUpgrade(header); !upgrade.ok()) {
    return RefuseUpgrade(ex, upgrade, header);
  }
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  if (found->state != SandboxState::kRunning) {
    return ex.ReplyError(Unavailable("sandbox " + found->record.id + " is dead"));
  }
  Status slot = ctx.tenants->StartExec(ex.caller);
  if (!slot.ok()) return ex.ReplyError(slot);
  ExecSlot release{*ctx.tenants, ex.caller};
  WsTerminal terminal(ex.conn, ex.request.body);
  if (!terminal.ok()) {
    return ex.ReplyError(Unavailable("the server is out of file descriptors; retry later"));
  }
  // From here the connection is the WebSocket's, and closes with it.
  ex.status = 101;
  ex.keep_alive = false;
  ex.audit["sandbox"] = found->record.id;
  if (!ex.conn.Write(ws::UpgradeResponse(header("sec-websocket-key")))) return;
  auto request = ReadStart(ctx, terminal, found->record);
  if (!request.ok()) {
    ex.audit["reason"] = "error";
    ex.audit["error_code"] = StatusCodeName(request.status().code());
    return terminal.Finish(TerminalErrorMessage(request.status()),
                           TerminalCloseCode(request.status()));
  }
  ExecCancellation cancel;
  OutputCapture capture(request->output_limit, [&](OutputStream, std::string_view data) {
    if (!terminal.SendOutput(data)) cancel.Cancel();
  });
  RunOutcome run =
      RunOnTerminal(ctx, ex.conn.fd(), terminal, found->record, *request, capture, cancel);
  RecordOutcome(ctx, ex, found->record, run);
  ExecResult r = run.result.ok() ? std::move(*run.result) : ErrorResult(run.result.status());
  TakeOutput(capture, /*json=*/false, &r);  // the output went as it came: not repeated
  terminal.Finish(TerminalResultMessage(r),
                  Aborting(ctx.abort_fd) ? ws::kCloseGoingAway : ws::kCloseNormal);
}

}  // namespace agentbox
