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

}  // namespace agentbox::mcp
