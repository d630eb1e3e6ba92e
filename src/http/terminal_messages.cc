#include "http/terminal_messages.h"

#include "base/json_limits.h"
#include "http/http_status.h"

namespace agentbox {
namespace {

using nlohmann::json;

// The window size's keys of a message (absent: `fallback`), strict as the agent's own parse.
StatusOr<WindowSize> TakeWindowSize(json& message, WindowSize fallback) {
  for (const char* key : {"rows", "cols"}) {
    if (message.contains(key) && !message[key].is_number_unsigned()) {
      return InvalidArgument("terminal: \"" + std::string(key) + "\" must be a whole number");
    }
  }
  const uint64_t rows = message.value("rows", uint64_t{fallback.rows});
  const uint64_t cols = message.value("cols", uint64_t{fallback.cols});
  AB_RETURN_IF_ERROR(CheckWindowSize(rows, cols));
  message.erase("rows");
  message.erase("cols");
  return WindowSize{static_cast<uint16_t>(rows), static_cast<uint16_t>(cols)};
}

StatusOr<json> JsonObject(std::string_view text, std::string_view what) {
  auto parsed = ParseJsonWithLimits(text);
  if (!parsed.ok()) {
    return InvalidArgument("terminal: " + std::string(what) + ": " + parsed.status().message());
  }
  if (!parsed->is_object()) {
    return InvalidArgument("terminal: " + std::string(what) + " must be a JSON object");
  }
  return parsed;
}

}  // namespace

StatusOr<TerminalStart> ParseTerminalStart(std::string_view text) {
  AB_ASSIGN_OR_RETURN(json body, JsonObject(text, "the first message (the exec body)"));
  for (const char* key : {"stdin", "stream", "detach", "interactive"}) {
    if (body.contains(key)) {
      return InvalidArgument("terminal: \"" + std::string(key) +
                             "\" does not apply: the terminal is the command's input and output");
    }
  }
  TerminalStart start;
  AB_ASSIGN_OR_RETURN(start.size, TakeWindowSize(body, WindowSize{}));
  start.exec_body = std::move(body);
  return start;
}

StatusOr<TerminalEvent> ParseTerminalMessage(const ws::Message& message) {
  if (message.opcode == ws::Opcode::kBinary) {
    return TerminalEvent{TerminalEvent::Kind::kInput, message.payload, {}};
  }
  if (message.opcode != ws::Opcode::kText) {
    return InvalidArgument("terminal: not a data message");
  }
  AB_ASSIGN_OR_RETURN(json m, JsonObject(message.payload, "a text message"));
  const std::string type = m.contains("type") && m["type"].is_string() ? m["type"] : "";
  if (type == "eof" && m.size() == 1)
    return TerminalEvent{TerminalEvent::Kind::kEndOfInput, "", {}};
  if (type == "resize" && m.size() == 3 && m.contains("rows") && m.contains("cols")) {
    m.erase("type");
    AB_ASSIGN_OR_RETURN(WindowSize size, TakeWindowSize(m, WindowSize{}));
    return TerminalEvent{TerminalEvent::Kind::kResize, "", size};
  }
  return InvalidArgument(
      "terminal: a text message is {\"type\":\"resize\",\"rows\":R,\"cols\":C} or "
      "{\"type\":\"eof\"} (keys go in binary messages)");
}

std::string TerminalResultMessage(const ExecResult& result) {
  return "{\"type\":\"result\",\"result\":" + ExecResultToJson(result) + "}";
}

// Spliced so that "type" comes first, as in every message of this stream.
std::string TerminalErrorMessage(const Status& error) {
  return "{\"type\":\"error\",\"error\":" +
         json(error.message()).dump(-1, ' ', false, json::error_handler_t::replace) +
         ",\"code\":" + json(StatusCodeName(error.code())).dump() + "}";
}

uint16_t TerminalCloseCode(const Status& error) {
  switch (HttpStatusFor(error)) {
    case 400:
    case 403:
    case 404:
    case 413:
      return ws::kClosePolicyViolation;
    case 429:
    case 503:
      return ws::kCloseTryAgainLater;
    default:
      return ws::kCloseInternalError;
  }
}

}  // namespace agentbox
