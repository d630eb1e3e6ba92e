// The tools of background processes: bash's and exec's `background`, process_list,
// process_output, process_kill and process_stdin, on the sandbox's process keeper
// (SandboxManager's StartProcess ... WriteProcessStdin).
#include <algorithm>
#include <chrono>
#include <csignal>

#include "app/mcp/mcp_tools.h"
#include "base/utf8.h"
#include "mcp/tool_args.h"
#include "mcp/tool_results.h"
#include "mcp/tool_schemas.h"
#include "spec/units.h"

namespace agentbox {
namespace {

using nlohmann::json;
namespace mcp = agentbox::mcp;

// How long process_kill waits for the process to exit after the signal, to say whether it did.
constexpr double kKillWaitSeconds = 2;

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// A failure of a process request, with the CLI's hints in the words of these tools.
json ProcessFailed(const Status& status, ToolCallContext& context) {
  if (context.cancellation && context.cancellation->cancelled()) {
    return mcp::TextToolResult("cancelled", true);
  }
  std::string message = status.message();
  ReplaceAll(message, "`agentbox ps`", std::string(mcp::kProcessListTool));
  ReplaceAll(message, "start it with --interactive",
             "start it with exec's background and interactive true");
  return mcp::TextToolResult("error: " + message, true);
}

// The output of process `id` from `since` on, both streams in the order they came.
StatusOr<ProcessLogs> ReadOutput(McpSession& session, const SandboxRecord& record,
                                 const std::string& id, uint64_t since, std::string* out) {
  OutputCapture capture(UINT64_MAX,
                        [out](OutputStream, std::string_view data) { out->append(data); });
  return session.manager().ProcessOutput(record, id, /*follow=*/false, since, capture);
}

std::string Plural(uint64_t n, const char* one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

json RunList(McpSession& session, const SandboxRecord& record, ToolCallContext& context) {
  auto processes = session.manager().ListProcesses(record);
  if (!processes.ok()) return ProcessFailed(processes.status(), context);
  return mcp::ProcessListResult(*processes);
}

// Waits up to `seconds` for the process to exit; with a progressToken in slices of a second,
// reporting between them, so a client that resets its timeout on progress waits along.
StatusOr<ProcessInfo> WaitFor(McpSession& session, const SandboxRecord& record,
                              const std::string& id, double seconds, ToolCallContext& context) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double left = seconds - elapsed;
    const double slice = context.progress ? std::min(1.0, left) : left;
    AB_ASSIGN_OR_RETURN(
        ProcessInfo info,
        session.manager().WaitProcess(record, id, std::max(slice, 0.001), context.cancellation));
    if (info.result || slice >= left) return info;
    if (context.cancellation && context.cancellation->cancelled()) return info;
    const double now =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    context.progress(
        now, "waiting for " + id + " to exit (" + std::to_string(static_cast<int>(now)) + "s)");
  }
}

json RunOutput(McpSession& session, const SandboxRecord& record, const mcp::ProcessToolArgs& args,
               ToolCallContext& context) {
  if (args.wait_seconds && *args.wait_seconds > session.max_timeout_seconds()) {
    return mcp::TextToolResult("invalid arguments: `wait_seconds` " +
                                   FormatSeconds(*args.wait_seconds) +
                                   " is over this server's ceiling of " +
                                   FormatSeconds(session.max_timeout_seconds()) + " seconds",
                               true);
  }
  if (args.wait_seconds && *args.wait_seconds > 0) {
    auto waited = WaitFor(session, record, args.proc, *args.wait_seconds, context);
    if (!waited.ok()) return ProcessFailed(waited.status(), context);
  }
  const uint64_t since = session.OutputCursor(args.proc);
  std::string output;
  auto logs = ReadOutput(session, record, args.proc, since, &output);
  if (!logs.ok()) return ProcessFailed(logs.status(), context);
  session.AdvanceOutputCursor(args.proc, logs->next);
  const uint64_t unread_dropped = logs->from > since ? logs->from - since : 0;
  return mcp::ProcessOutputResult(ShapeModelOutput(session, record, SanitizeUtf8(output)),
                                  logs->from, logs->next, unread_dropped, logs->process);
}

json RunKill(McpSession& session, const SandboxRecord& record, const mcp::ProcessToolArgs& args,
             ToolCallContext& context) {
  auto info = session.manager().SignalProcess(record, args.proc, args.signal);
  if (!info.ok()) return ProcessFailed(info.status(), context);
  ProcessInfo last = *info;
  if (!last.result) {
    auto waited =
        session.manager().WaitProcess(record, args.proc, kKillWaitSeconds, context.cancellation);
    if (waited.ok()) last = *waited;
  }
  const std::string sent = "sent " + SignalName(args.signal) + " to " + last.id + ": ";
  if (last.result)
    return mcp::ProcessToolResult(sent + last.id + " " + mcp::ProcessEnding(last), last);
  return mcp::ProcessToolResult(sent + last.id + " is still running after " +
                                    FormatSeconds(kKillWaitSeconds) +
                                    " seconds (it may catch or ignore the signal; KILL ends it)",
                                last);
}

json RunStdin(McpSession& session, const SandboxRecord& record, const mcp::ProcessToolArgs& args,
              ToolCallContext& context) {
  auto info = session.manager().WriteProcessStdin(record, args.proc, args.data, args.close);
  if (!info.ok()) return ProcessFailed(info.status(), context);
  std::string text = args.data.empty()
                         ? "closed the stdin of " + info->id
                         : "wrote " + Plural(args.data.size(), "byte") + " to the stdin of " +
                               info->id + (args.close ? " and closed it" : "");
  return mcp::ProcessToolResult(text, *info);
}

}  // namespace

json StartBackgroundProcess(McpSession& session, const SandboxRecord& record, ExecRequest request,
                            const std::optional<std::string>& stdin_data, bool interactive,
                            ToolCallContext& context) {
  if (stdin_data && stdin_data->size() > kMaxPendingStdinBytes) {
    return mcp::TextToolResult(
        "invalid arguments: `stdin` of a background process is at most 1 MiB; write the rest "
        "with process_stdin (interactive true)",
        true);
  }
  // Its stdin is a pipe when there is something to write to it, now or later.
  request.interactive = interactive || stdin_data.has_value();
  auto info = session.manager().StartProcess(record, request);
  if (!info.ok()) return ProcessFailed(info.status(), context);
  if (info->result) {
    // It could not be executed (or ended at once): its own words are its output.
    std::string output;
    auto logs = ReadOutput(session, record, info->id, 0, &output);
    if (logs.ok()) session.AdvanceOutputCursor(info->id, logs->next);
    const ProcessInfo& last = logs.ok() ? logs->process : *info;
    json result = mcp::ProcessToolResult(
        SanitizeUtf8(output) + (output.empty() || output.back() == '\n' ? "" : "\n") + "[" +
            last.id + " ended at once: " + mcp::ProcessEnding(last) + "]",
        last);
    result["isError"] = last.result->reason != ExitReason::kExited || last.result->exit_code != 0;
    return result;
  }
  ProcessInfo started = *info;
  if (stdin_data) {
    auto written =
        session.manager().WriteProcessStdin(record, started.id, *stdin_data, !interactive);
    if (!written.ok()) {
      json failed = ProcessFailed(written.status(), context);
      failed["content"][0]["text"] =
          "started " + started.id + " in the background, but its stdin " +
          "could not be written: " + failed["content"][0]["text"].get<std::string>();
      return failed;
    }
    started = *written;
  }
  std::string text =
      "started " + started.id + " in the background: " + mcp::ProcessCommandLine(started) +
      "\nRead its output with " + std::string(mcp::kProcessOutputTool) +
      (interactive ? ", write to its stdin with " + std::string(mcp::kProcessStdinTool)
                   : std::string()) +
      ", stop it with " + std::string(mcp::kProcessKillTool) + ".";
  return mcp::ProcessToolResult(text, started);
}

std::optional<json> BackgroundProcessResult(McpSession& session, const std::string& proc) {
  auto record = session.Sandbox();
  if (!record.ok()) return std::nullopt;
  std::string output;
  auto logs = ReadOutput(session, *record, proc, 0, &output);
  if (!logs.ok() || !logs->process.result) return std::nullopt;
  const ProcessInfo& last = logs->process;
  std::string text = ShapeModelOutput(session, *record, SanitizeUtf8(output));
  if (!text.empty() && text.back() != '\n') text += '\n';
  json result =
      mcp::ProcessToolResult(text + "[" + last.id + " " + mcp::ProcessEnding(last) + "]", last);
  result["isError"] = last.result->reason != ExitReason::kExited || last.result->exit_code != 0;
  return result;
}

void KillBackgroundProcess(McpSession& session, const std::string& proc) {
  auto record = session.Sandbox();
  if (record.ok()) (void)session.manager().SignalProcess(*record, proc, SIGKILL);
}

json RunProcessTool(McpSession& session, const SandboxRecord& record, const std::string& name,
                    const json& arguments, ToolCallContext& context) {
  auto args = mcp::ParseProcessToolArgs(name, arguments);
  if (!args.ok()) return mcp::StatusToolResult(args.status());
  if (name == mcp::kProcessListTool) return RunList(session, record, context);
  if (name == mcp::kProcessOutputTool) return RunOutput(session, record, *args, context);
  if (name == mcp::kProcessKillTool) return RunKill(session, record, *args, context);
  return RunStdin(session, record, *args, context);
}

}  // namespace agentbox
