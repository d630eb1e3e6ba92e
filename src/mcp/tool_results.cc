#include "mcp/tool_results.h"

#include "base/utf8.h"
#include "mcp/bash_tool.h"

namespace agentbox::mcp {

using nlohmann::json;

json TextToolResult(const std::string& text, bool is_error) {
  return {{"content", json::array({{{"type", "text"}, {"text", SanitizeUtf8(text)}}})},
          {"isError", is_error}};
}

json StatusToolResult(const Status& status) { return TextToolResult(status.message(), true); }

json StructuredToolResult(json structured, bool is_error) {
  json result = TextToolResult(
      structured.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace), is_error);
  result["structuredContent"] = std::move(structured);
  return result;
}

json ExecToolResult(const ExecResult& result, const CommandLimits& limits) {
  // ExecResultToJson sanitizes every string, so this parse cannot fail; be safe anyway.
  const std::string text = ExecResultToJson(result);  // in the documented key order
  json structured = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (structured.is_discarded()) return TextToolResult("error: could not render the result", true);
  std::string failure = ExecFailureReason(result, limits);
  json out = TextToolResult(text, !failure.empty());
  out["structuredContent"] = std::move(structured);
  for (const std::string& note : LimitNotes(result, limits)) {
    out["content"].push_back({{"type", "text"}, {"text", note}});
  }
  if (failure.empty()) return out;
  // The reason leads, so a client that shows only the first block still says why it failed.
  json reason = json::object();
  reason["type"] = "text";
  reason["text"] = failure;
  out["content"].insert(out["content"].begin(), std::move(reason));
  return out;
}

std::string ProcessEnding(const ProcessInfo& info) {
  if (!info.result) return "is running";
  const ExecResult& r = *info.result;
  switch (r.reason) {
    case ExitReason::kExited:
      return "exited with code " + std::to_string(r.exit_code);
    case ExitReason::kSignaled:
      return "was killed by signal " + SignalName(r.signal.value_or(0));
    case ExitReason::kTimeout:
      return "timed out and was killed";
    case ExitReason::kOom:
      return "was killed: out of memory";
    case ExitReason::kError:
      return "failed: " + r.error;
  }
  return "exited";
}

std::string ProcessCommandLine(const ProcessInfo& info) {
  const std::vector<std::string>& argv = info.argv;
  if (argv.size() == 4 && argv[0] == "/bin/bash" && argv[1] == "-c" && argv[3] == "bash") {
    return SanitizeUtf8(argv[2]);
  }
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + SanitizeUtf8(a);
  return line;
}

json ProcessJson(const ProcessInfo& info) {
  json j = json::parse(ProcessInfoToJson(info), nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json::object() : j;
}

json ProcessToolResult(const std::string& text, const ProcessInfo& info) {
  json result = TextToolResult(text);
  result["structuredContent"] = ProcessJson(info);
  return result;
}

json ProcessListResult(const std::vector<ProcessInfo>& processes) {
  json list = json::array();
  std::string text;
  for (const ProcessInfo& p : processes) {
    list.push_back(ProcessJson(p));
    text += p.id + "  " + (p.result ? ProcessEnding(p) : "running") + "  " + ProcessCommandLine(p) +
            "\n";
  }
  if (processes.empty()) text = "no background processes\n";
  json result = TextToolResult(text);
  result["structuredContent"] = {{"processes", std::move(list)}};
  return result;
}

json ProcessOutputResult(const std::string& output, uint64_t from, uint64_t next,
                         uint64_t unread_dropped, const ProcessInfo& info) {
  std::string text = output;
  auto note = [&text](const std::string& line) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += line + "\n";
  };
  if (output.empty()) note("[no new output]");
  if (unread_dropped > 0) {
    note(
        "[" + std::to_string(unread_dropped) +
        " bytes of earlier output were dropped before they were read: the sandbox keeps the latest "
        "output of a process only]");
  }
  note("[" + info.id + " " + (info.result ? ProcessEnding(info) : "is still running") + "]");
  json result = TextToolResult(text);
  result["structuredContent"] = {{"output", SanitizeUtf8(output)},
                                 {"from", from},
                                 {"next", next},
                                 {"process", ProcessJson(info)}};
  return result;
}

}  // namespace agentbox::mcp
