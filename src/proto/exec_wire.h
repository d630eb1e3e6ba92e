// ExecResult and exec requests on the agent protocol: the JSON both sides agree on.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "proto/exec_result.h"

namespace agentbox {

// One command for the agent to run (docs/contract.md §3 `exec`).
struct ExecRequest {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd = "/workspace";
  double timeout_seconds = 60;
  uint64_t output_limit = 1024 * 1024;
  bool pass_stdin = false;  // the stdin fd rides along with the request frame
  // With pass_stdin, where no fd can ride along (TCP, proto/agent_hello.h): the client sends
  // its stdin as kData frames after the request, an empty one at its end.
  bool stdin_frames = false;
  // A background process (proto/process_wire.h): answered at once with its info. Its timeout
  // may be 0, for none: it then runs until it exits, is killed or the sandbox ends.
  bool detach = false;
  bool interactive = false;  // detached only: its stdin a pipe, written by proc_stdin
  // A terminal (proto/terminal_wire.h): the command's stdin, stdout and stderr are a PTY the
  // agent makes, of this size; its output comes as kStdout frames, its keystrokes and window
  // size as frames the client sends while it runs. Not with pass_stdin or detach.
  bool tty = false;
  uint16_t rows = 24, cols = 80;
};

std::string ExecRequestToWire(const ExecRequest& request);
// Strict: kInvalidArgument naming the bad field.
StatusOr<ExecRequest> ExecRequestFromWire(const std::string& json);

// The result without stdout/stderr, which travel as frames of their own.
std::string ExecResultToWire(const ExecResult& result);
StatusOr<ExecResult> ExecResultFromWire(const std::string& json);

}  // namespace agentbox
