// The `bash` tool: a persistent shell built from one-shot commands.
//
// Each call runs `bash -c SCRIPT` in the sandbox. The script's prologue restores the shell state
// that the previous call saved in the sandbox's private /tmp (cwd; exported variables, functions
// and aliases), and an EXIT trap saves it again, so `cd` and `export` persist whether the
// command succeeds, fails or calls `exit`. Keeping the state in the sandbox rather than in a
// long-lived process means nothing survives the sandbox and every call has the exec path's
// limits, timeout and process-tree kill.
#pragma once

#include <string>
#include <vector>

#include "proto/exec_result.h"

namespace agentbox::mcp {

inline constexpr const char* kBashStateDir = "/tmp/.agentbox_bash";

// argv for running `command` in the persistent shell (stderr merged into stdout, in order).
std::vector<std::string> BashCommandArgv(const std::string& command);
// argv that forgets the saved state: the next call starts in /workspace with a clean env.
std::vector<std::string> BashRestartArgv();

struct BashToolText {
  std::string text;
  bool is_error = false;
};

// What the model sees, in the manner of Anthropic's bash tool: the output itself, then a note
// for a non-zero exit status, dropped output, or (is_error) a timeout, OOM kill or failure.
BashToolText FormatBashResult(const ExecResult& result, double timeout_seconds);

// The one-line reason for a result that is a tool error (timeout, oom, error), else "".
std::string ExecFailureReason(const ExecResult& result, double timeout_seconds);

}  // namespace agentbox::mcp
