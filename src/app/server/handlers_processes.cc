// /v1/sandboxes/{id}/processes: the background processes a detached exec starts
// (core/sandbox_manager.h), as `agentbox ps`, `logs`, `wait`, `kill` and `send` have them.
#include <algorithm>
#include <cstdint>
#include <functional>

#include "app/server/server_context.h"
#include "app/server/shared_stream.h"
#include "http/api_bodies.h"
#include "proto/process_wire.h"

namespace agentbox {
namespace {

// As an exec's stream: a quiet follow gets an SSE keep-alive this often.
constexpr int kKeepAliveMs = 15000;
// Output is escaped into events this much at a time, so a follower costs the server a few
// hundred kilobytes at most, whatever the process prints.
constexpr size_t kEventSlice = 64 * 1024;

// The sandbox a request names (the caller's, running) and, with_proc, its checked {proc}.
struct ProcTarget {
  SandboxRecord record;
  std::string proc;
};

StatusOr<ProcTarget> Target(ServerContext& ctx, Exchange& ex, bool with_proc) {
  AB_ASSIGN_OR_RETURN(SandboxStatus found, FindVisible(ctx, ex.caller, ex.Param("id")));
  ex.audit["sandbox"] = found.record.id;
  ProcTarget target{found.record, ""};
  if (with_proc) {
    target.proc = ex.Param("proc");
    AB_RETURN_IF_ERROR(CheckProcessId(target.proc));
    ex.audit["proc"] = target.proc;
  }
  if (found.state != SandboxState::kRunning) {
    return Unavailable("sandbox " + found.record.id + " is dead");
  }
  return target;
}

void ReplyProcess(Exchange& ex, const StatusOr<ProcessInfo>& info) {
  if (!info.ok()) return ex.ReplyError(info.status());
  ex.audit["state"] = ProcessStateName(info->state);
  if (info->result) ex.audit["reason"] = ExitReasonName(info->result->reason);
  ex.Reply(200, "application/json", ProcessInfoToJson(*info) + "\n");
}

// The process of that id, from the list (kNotFound when the sandbox has none such).
StatusOr<ProcessInfo> FindProcess(SandboxManager& manager, const ProcTarget& target) {
  AB_ASSIGN_OR_RETURN(std::vector<ProcessInfo> all, manager.ListProcesses(target.record));
  auto it = std::find_if(all.begin(), all.end(),
                         [&target](const ProcessInfo& p) { return p.id == target.proc; });
  if (it == all.end()) {
    return NotFound("no process " + target.proc + " in sandbox " + target.record.id);
  }
  return *it;
}

}  // namespace

void HandleListProcesses(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, /*with_proc=*/false);
  if (!target.ok()) return ex.ReplyError(target.status());
  auto all = ctx.Manager().ListProcesses(target->record);
  if (!all.ok()) return ex.ReplyError(all.status());
  ex.Reply(200, "application/json", ProcessListJson(*all) + "\n");
}

void HandleGetProcess(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, /*with_proc=*/true);
  if (!target.ok()) return ex.ReplyError(target.status());
  SandboxManager manager = ctx.Manager();
  ReplyProcess(ex, FindProcess(manager, *target));
}

void HandleProcessLogs(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, /*with_proc=*/true);
  if (!target.ok()) return ex.ReplyError(target.status());
  auto query = ParseLogsQuery(ex.request.QueryFlag("follow"), ex.request.Query("since"),
                              ex.request.Query("stream"), ex.request.Header("accept"));
  if (!query.ok()) return ex.ReplyError(query.status());
  SandboxManager manager = ctx.Manager();
  // An unknown process is a 404, not a stream that says so: looked for before the 200 goes.
  if (auto found = FindProcess(manager, *target); !found.ok()) {
    return ex.ReplyError(found.status());
  }
  const StreamFormat format = query->format;
  SharedStream stream(ex);
  OutputEvents events(stream, format);
  ExecCancellation cancel;
  // The client hanging up (or shutdown running out of grace) ends the reading; the process
  // runs on.
  HangupWatch watch(
      ex.conn.fd(), ctx.abort_fd, [&cancel] { cancel.Cancel(); }, events.KeepAlive(), kKeepAliveMs);
  if (!watch.ok()) {
    return ex.ReplyError(
        Unavailable("the server is out of file descriptors or threads; retry later"));
  }
  if (!events.Begin()) return;
  // Nothing is kept: each piece goes out as it comes (the ring in the sandbox bounds what there
  // is, and a slow reader slows the agent's connection, not this server's memory).
  OutputCapture capture(UINT64_MAX, [&](OutputStream s, std::string_view data) {
    for (size_t at = 0; at < data.size(); at += kEventSlice) {
      events.Append(s, data.substr(at, kEventSlice));
    }
    if (ex.conn.broken()) cancel.Cancel();  // a client that stopped reading
  });
  auto logs = manager.ProcessOutput(target->record, target->proc, query->follow, query->since,
                                    capture, &cancel);
  events.Flush();
  if (logs.ok()) {
    ex.audit["state"] = ProcessStateName(logs->process.state);
    stream.Send(ProcessEndEvent(format, logs->process, logs->from, logs->next));
  } else {
    ex.audit["error_code"] = StatusCodeName(logs.status().code());
    stream.Send(StreamErrorEvent(format, logs.status()));
  }
  stream.End();
}

void HandleWaitProcess(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, /*with_proc=*/true);
  if (!target.ok()) return ex.ReplyError(target.status());
  auto timeout = ParseWaitTimeout(ex.request.Query("timeout"));
  if (!timeout.ok()) return ex.ReplyError(timeout.status());
  ExecCancellation cancel;
  StatusOr<ProcessInfo> info = Internal("not waited");
  {
    // A client that hangs up stops the wait (never the process).
    HangupWatch watch(ex.conn.fd(), ctx.abort_fd, [&cancel] { cancel.Cancel(); });
    if (!watch.ok()) {
      return ex.ReplyError(
          Unavailable("the server is out of file descriptors or threads; retry later"));
    }
    info = ctx.Manager().WaitProcess(target->record, target->proc, *timeout, &cancel);
  }
  ReplyProcess(ex, info);
}

void HandleKillProcess(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, /*with_proc=*/true);
  if (!target.ok()) return ex.ReplyError(target.status());
  const bool empty = ex.request.body.empty();
  nlohmann::json json = nlohmann::json::object();
  if (!empty) {
    auto parsed = ParseJsonBody(ex.request);
    if (!parsed.ok()) return ex.ReplyError(parsed.status());
    json = std::move(*parsed);
  }
  auto signal = ParseKillBody(json, empty);
  if (!signal.ok()) return ex.ReplyError(signal.status());
  ex.audit["signal"] = SignalName(*signal);
  ReplyProcess(ex, ctx.Manager().SignalProcess(target->record, target->proc, *signal));
}

void HandleWriteProcessStdin(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, /*with_proc=*/true);
  if (!target.ok()) return ex.ReplyError(target.status());
  // The door refuses a larger announced length, and a chunked body is cut there too.
  if (ex.request.body.size() > kMaxPendingStdinBytes) {
    return ex.ReplyError(ResourceExhausted("request body larger than " +
                                           std::to_string(kMaxPendingStdinBytes) + " bytes"));
  }
  const bool close = ex.request.QueryFlag("close");
  ex.audit["bytes"] = ex.request.body.size();
  if (close) ex.audit["close"] = true;
  ReplyProcess(
      ex, ctx.Manager().WriteProcessStdin(target->record, target->proc, ex.request.body, close));
}

}  // namespace agentbox
