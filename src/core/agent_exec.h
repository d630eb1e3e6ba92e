// Host side of the agent's exec (see proto/agent_protocol.h).
#pragma once

#include <mutex>
#include <string>

#include "base/status.h"
#include "core/agent_endpoint.h"
#include "core/terminal_input.h"
#include "proto/exec_result.h"
#include "proto/exec_wire.h"
#include "proto/output_capture.h"

namespace agentbox {

// Lets another thread stop a running AgentExec: the agent sees its client hang up and kills the
// command's whole process tree; AgentExec then returns a kUnavailable Status saying so.
class ExecCancellation {
 public:
  void Cancel();
  bool cancelled() const;

  // Ties a cancellation (null: none) to the connection of one request to the agent while it
  // lasts: Cancel() then shuts that connection down.
  class Scope {
   public:
    Scope(ExecCancellation* cancellation, int fd);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ExecCancellation* cancellation_;
  };

 private:
  void Attach(int fd);
  void Detach();
  mutable std::mutex mutex_;
  int fd_ = -1;
  bool cancelled_ = false;
};

// Runs request in the sandbox whose agent is `agent`; output frames go to `output`
// as they arrive. stdin_fd (when request.pass_stdin) is handed to the command itself. Returns the
// agent's result; a transport failure is an error Status (the sandbox may be dead).
// With request.tty, `terminal` is polled beside the connection and what it reads is sent to
// the agent as the command's keystrokes and window sizes.
StatusOr<ExecResult> AgentExec(const AgentEndpoint& agent, const ExecRequest& request,
                               OutputCapture& output, int stdin_fd = -1,
                               ExecCancellation* cancellation = nullptr,
                               TerminalInput* terminal = nullptr);

}  // namespace agentbox
