// The terminal WebSocket's connection on the worker that runs its handler (handlers_terminal.cc):
// the client's messages as a TerminalInput, which AgentExec polls beside the agent's connection,
// and the server's messages to the client. One thread does all of it (the handler's, inside
// AgentExec), so output, pongs and the close never interleave. The messages' meaning is
// http/terminal_messages.h; the frames' codec http/websocket.h.
//
// Bounds: a client message (the first one included) is at most kMaxJsonBody, refused from its
// frame header before it is buffered; one Read takes at most 64 KiB off the socket, so a client
// that floods gets its keys forwarded at the pace the command's terminal takes them.
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "app/server/http_connection.h"
#include "base/status.h"
#include "core/terminal_input.h"
#include "http/websocket.h"
#include "sys/unique_fd.h"

namespace agentbox {

class WsTerminal : public TerminalInput {
 public:
  // `already_read`: what the event loop read past the upgrade request's head (frames a client
  // sent without waiting for the 101).
  WsTerminal(HttpConnection& conn, std::string already_read);
  // False when the server is out of fds: nothing can be served.
  bool ok() const { return epoll_.valid() && pending_.valid(); }

  // The first data message, which must be text (the exec body), waited for until `deadline`
  // or until `abort_fd` turns readable. Pings are answered meanwhile. kInvalidArgument for a
  // binary one, a frame the protocol forbids, or none in time; kUnavailable when the client
  // closed or the server is stopping.
  StatusOr<std::string> ReadFirst(std::chrono::steady_clock::time_point deadline, int abort_fd);

  // TerminalInput: readable when the client's socket is, or when messages read with the first
  // one wait (a client may send its keys in the same packet); -1 once either side closed.
  int fd() const override;
  // Keys, resizes, the end of input; kHangUp once the client closed, sent what it may not (it is
  // told why, and the connection closed), or vanished.
  std::vector<TerminalEvent> Read() override;

  // The command's output as one binary message. False once the client cannot take it.
  bool SendOutput(std::string_view bytes);
  // The last text message, then a close with `code`; waits a moment for the client's close, as
  // RFC 6455 §7.1.1 asks of the server. Nothing when the connection is closed already.
  void Finish(std::string_view text, uint16_t code);

  bool closed() const { return closed_; }

 private:
  // One read from the socket into the parser; false on EOF or a socket error.
  bool Fill();
  // Answers pings and the client's close; true for a data message the caller takes.
  bool HandleControl(const ws::Message& message);
  // Fails the connection: an error message (when there is one to say), then a close.
  void Fail(uint16_t code, const Status& why, bool tell);
  void Close(uint16_t code, std::string_view reason);

  HttpConnection& conn_;
  UniqueFd epoll_;    // the socket and pending_: what fd() gives to poll
  UniqueFd pending_;  // an eventfd, readable while messages_ holds what Read has not taken
  ws::FrameParser parser_;
  std::string unread_;  // bytes read by the event loop, fed first
  std::deque<ws::Message> messages_;
  bool closed_ = false;  // a close was sent (or the client is gone): nothing more is written
};

}  // namespace agentbox
