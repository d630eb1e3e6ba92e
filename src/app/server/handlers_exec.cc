// POST /v1/sandboxes/{id}/exec: one command, answered as one JSON result or streamed.
#include <chrono>
#include <functional>

#include "app/server/exec_common.h"
#include "app/server/shared_stream.h"
#include "proto/exec_output.h"
#include "proto/process_wire.h"
#include "sys/memfd.h"

namespace agentbox {
namespace {

// How long a stream may stay silent before it gets a keep-alive (as /mcp's streams).
constexpr int kKeepAliveMs = 15000;

// `on_quiet`, when set, is called from the watch's thread every kKeepAliveMs meanwhile.
RunOutcome RunWatched(ServerContext& ctx, Exchange& ex, const SandboxRecord& record,
                      const ExecBody& body, OutputCapture& capture,
                      std::function<void()> on_quiet = nullptr) {
  UniqueFd stdin_fd;
  if (body.stdin_data) {
    auto fd = MemfdWithContents("exec-stdin", *body.stdin_data);
    if (!fd.ok()) return {fd.status(), 0};
    stdin_fd = std::move(*fd);
  }
  ExecCancellation cancel;
  auto start = std::chrono::steady_clock::now();
  StatusOr<ExecResult> result = Internal("not run");
  {
    // The client hanging up, or shutdown running out of grace, kills the command's tree.
    HangupWatch watch(
        ex.conn.fd(), ctx.abort_fd, [&cancel] { cancel.Cancel(); }, std::move(on_quiet),
        kKeepAliveMs);
    if (!watch.ok()) {
      // A command nobody could cancel must not start.
      return {Unavailable("the server is out of file descriptors or threads; retry later"), 0};
    }
    SandboxManager manager = ctx.Manager();
    result = body.rollback_on_failure
                 ? manager.ExecWithRollback(record, body.request, capture, stdin_fd.get(), &cancel)
                 : manager.Exec(record, body.request, capture, stdin_fd.get(), &cancel);
  }
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return {std::move(result), took.count()};
}

void ExecJson(ServerContext& ctx, Exchange& ex, const SandboxRecord& record, const ExecBody& body) {
  OutputCapture capture(body.request.output_limit, /*forward_fds=*/false);
  RunOutcome run = RunWatched(ctx, ex, record, body, capture);
  RecordOutcome(ctx, ex, record, run);
  if (!run.result.ok()) return ex.ReplyError(run.result.status());
  ExecResult r = std::move(*run.result);
  TakeOutput(capture, /*json=*/true, &r);
  ExecResultJson json(r);
  auto held = ctx.result_text.Reserve(json.size());  // until the answer is written
  const std::string text = json.Render() + "\n";
  r = ExecResult{};  // the raw output goes before the answer is written (json is done with it)
  ex.Reply(200, "application/json", text);
}

void ExecStream(ServerContext& ctx, Exchange& ex, const SandboxRecord& record,
                const ExecBody& body) {
  const StreamFormat format = body.stream;
  SharedStream stream(ex);
  OutputEvents events(stream, format);
  if (!events.Begin()) return;
  OutputCapture capture(body.request.output_limit,
                        [&](OutputStream s, std::string_view data) { events.Append(s, data); });
  RunOutcome run = RunWatched(ctx, ex, record, body, capture, events.KeepAlive());
  RecordOutcome(ctx, ex, record, run);
  events.Flush();
  ExecResult r = run.result.ok() ? std::move(*run.result) : ErrorResult(run.result.status());
  TakeOutput(capture, /*json=*/false, &r);  // streamed output is not repeated in the result
  stream.Send(StreamResultEvent(format, r));
  stream.End();
}

// "detach": the process object at once (201), the command running on. One that could not be
// executed is already exited, its result saying why (its logs hold the error line).
void ExecDetached(ServerContext& ctx, Exchange& ex, const SandboxRecord& record,
                  const ExecBody& body) {
  ExecRequest request = body.request;
  request.interactive = body.interactive;
  auto info = ctx.Manager().StartProcess(record, request);
  ex.audit["sandbox"] = record.id;
  ex.audit["detach"] = true;
  if (!info.ok()) return ex.ReplyError(info.status());
  ex.audit["proc"] = info->id;
  ex.audit["state"] = ProcessStateName(info->state);
  if (info->result) ex.audit["reason"] = ExitReasonName(info->result->reason);
  ex.Reply(201, "application/json", ProcessInfoToJson(*info) + "\n",
           {{"Location", "/v1/sandboxes/" + record.id + "/processes/" + info->id}});
}

}  // namespace

StatusOr<ExecBody> ExecBodyWithinLimits(const ServerContext& ctx, const nlohmann::json& json,
                                        const SandboxRecord& record, std::string_view accept) {
  const TenantLimits& limits = ctx.config.limits;
  ExecRequest defaults = SandboxManager::DefaultExecRequest(record);
  defaults.timeout_seconds = limits.ClampTimeout(defaults.timeout_seconds);
  defaults.output_limit = limits.ClampOutputLimit(defaults.output_limit);
  AB_ASSIGN_OR_RETURN(ExecBody body, ParseExecBody(json, defaults, accept));
  if (json.contains("timeout"))
    AB_RETURN_IF_ERROR(limits.CheckTimeout(body.request.timeout_seconds));
  // A detached process that names no timeout gets the ceiling: it is never unbounded on a
  // server whose operator bounds every command (the CLI's `exec -d` has none).
  if (body.detach && !json.contains("timeout")) {
    body.request.timeout_seconds = limits.DetachedTimeout();
  }
  if (json.contains("output_limit")) {
    AB_RETURN_IF_ERROR(limits.CheckOutputLimit(body.request.output_limit));
  }
  return body;
}

void RecordOutcome(ServerContext& ctx, Exchange& ex, const SandboxRecord& record,
                   const RunOutcome& run) {
  const char* reason = run.result.ok() ? ExitReasonName(run.result->reason) : "error";
  ctx.metrics.RecordExec(ex.caller.tenant, reason, run.seconds);
  ex.audit["sandbox"] = record.id;
  ex.audit["reason"] = reason;
  if (run.result.ok()) ex.audit["exit_code"] = run.result->exit_code;
  if (run.result.ok() && !run.result->limits_hit.empty()) {
    ex.audit["limits_hit"] = run.result->limits_hit;
  }
}

void HandleExec(ServerContext& ctx, Exchange& ex) {
  auto json = ParseJsonBody(ex.request);
  if (!json.ok()) return ex.ReplyError(json.status());
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  auto body = ExecBodyWithinLimits(ctx, *json, found->record, ex.request.Header("accept"));
  if (!body.ok()) return ex.ReplyError(body.status());
  if (found->state != SandboxState::kRunning) {
    return ex.ReplyError(Unavailable("sandbox " + found->record.id + " is dead"));
  }
  Status slot = ctx.tenants->StartExec(ex.caller);
  if (!slot.ok()) return ex.ReplyError(slot);
  ExecSlot release{*ctx.tenants, ex.caller};
  if (body->detach) return ExecDetached(ctx, ex, found->record, *body);
  if (body->stream == StreamFormat::kNone) return ExecJson(ctx, ex, found->record, *body);
  ExecStream(ctx, ex, found->record, *body);
}

}  // namespace agentbox
