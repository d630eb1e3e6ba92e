// The client's side of a terminal exec (ExecRequest::tty) while it runs: keystrokes, window
// sizes and the end of input, from whatever the front end reads them from (the CLI's own
// terminal, serve's WebSocket). AgentExec polls fd() beside the agent's connection.
#pragma once

#include <string>
#include <vector>

#include "proto/terminal_wire.h"

namespace agentbox {

struct TerminalEvent {
  enum class Kind {
    kInput,       // bytes to type
    kResize,      // a new window size
    kEndOfInput,  // no more input: the terminal's EOF character is sent once
    kHangUp,      // the client is gone: the command's tree is killed, as a cancelled exec's
  };
  Kind kind;
  std::string bytes;
  WindowSize size;
};

class TerminalInput {
 public:
  virtual ~TerminalInput() = default;
  // Polled for POLLIN; -1 when there is nothing more to wait for.
  virtual int fd() const = 0;
  // When fd() is readable: what arrived (possibly nothing).
  virtual std::vector<TerminalEvent> Read() = 0;
};

}  // namespace agentbox
