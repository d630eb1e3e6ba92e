// The messages of serve's terminal WebSocket (GET /v1/sandboxes/{id}/exec/tty, docs/api.md):
// what a client's text and binary messages mean, and the text messages the server sends. Pure,
// so every rule is unit-tested; the socket side is app/server/ws_terminal.h.
//
//   client -> server   first message (text): the exec body POST .../exec takes, plus "rows" and
//                      "cols"; then binary messages are keys, text messages
//                      {"type":"resize","rows":R,"cols":C} or {"type":"eof"}
//   server -> client   binary messages: what the terminal shows; last a text message
//                      {"type":"result","result":{...}} (or {"type":"error",...}), then close
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"
#include "core/terminal_input.h"
#include "http/websocket.h"
#include "proto/exec_result.h"

namespace agentbox {

// The first message split in two: the exec body (for ParseExecBody and the operator's limits)
// and the window size. rows/cols default to 24x80. Keys that make no sense on a terminal
// ("stdin", "stream", "detach", "interactive": the terminal is the command's input and output)
// are refused, kInvalidArgument naming the key.
struct TerminalStart {
  nlohmann::json exec_body;
  WindowSize size;
};
StatusOr<TerminalStart> ParseTerminalStart(std::string_view text);

// A data message after the first: binary is input; text is a resize or the end of input.
// Anything else is kInvalidArgument (the session then ends: the command is not left running
// for a client that speaks another protocol).
StatusOr<TerminalEvent> ParseTerminalMessage(const ws::Message& message);

// {"type":"result","result":{...}}: the exec result as POST .../exec streams it (its output was
// sent as binary messages, so "stdout" is not repeated).
std::string TerminalResultMessage(const ExecResult& result);
// {"type":"error","error":"...","code":"invalid_argument"}: what stopped the exec before it ran.
std::string TerminalErrorMessage(const Status& error);
// The close code that follows an error message: 1008 for what the client sent or may not do,
// 1013 (try again later) for a sandbox or server that cannot run it now, 1011 otherwise.
uint16_t TerminalCloseCode(const Status& error);

}  // namespace agentbox
