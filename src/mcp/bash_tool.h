// The `bash` tool: a persistent shell built from one-shot commands.
//
// Each call runs `bash -c COMMAND` in the sandbox, the model's command as bash's own -c string,
// so errors read as a plain bash's ("bash: line 1: foo: command not found") and `ps` shows
// `/bin/bash -c COMMAND bash`. The wrapper travels apart from it: BASH_ENV=/proc/self/fd/0 makes
// bash source its stdin (a memfd holding the prologue) before the command runs. The prologue
// restores the shell state that the previous call saved in the sandbox's private /tmp (cwd; every
// variable the calls set, exported or not; functions and aliases), points stdin at /dev/null, and
// sets an EXIT trap that saves it again, so `cd`, `x=1` and `export` persist whether the command
// succeeds, fails or calls `exit`. Keeping the state in the sandbox rather than in a long-lived
// process means nothing survives the sandbox and every call has the exec path's limits, timeout
// and process-tree kill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "proto/exec_result.h"

namespace agentbox::mcp {

inline constexpr const char* kBashStateDir = "/tmp/.agentbox_bash";
// The state restored, read only, by a background command (written there by every call's prologue).
inline constexpr const char* kBashRestoreScript = "/tmp/.agentbox_bash/restore";

// The most characters one `bash` result carries by default (about what Anthropic's and OpenAI's
// reference shells return): a model's context is the scarce thing, not the sandbox's output.
inline constexpr size_t kDefaultBashOutputChars = 30000;
// Where a cut output is kept in full, one file per call.
inline constexpr const char* kBashOutputDir = "/workspace/.agentbox/bash-output";

// How to run `command` in the persistent shell: argv, the environment to add, and the prologue
// to give the command as its stdin (stderr is merged into stdout, in order).
struct BashInvocation {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string stdin_script;
};
BashInvocation BashCommand(const std::string& command);
// How to run `command` in the background (`"background": true`): the same `bash -c COMMAND`, in
// the cwd and with the variables, functions and aliases the last call saved, but it saves none
// of its own (later calls run alongside it), and its stdin is /dev/null (the agent's, no
// prologue to read) and its stderr its own stream. Before any call saved a state it starts as a
// fresh shell does, in /workspace.
BashInvocation BashBackgroundCommand(const std::string& command);
// argv that forgets the saved state: the next call starts in /workspace with a clean env.
std::vector<std::string> BashRestartArgv();

// The limits a command ran under, for saying in words which one it hit. 0 = not known.
struct CommandLimits {
  double timeout_seconds = 60;
  uint64_t memory_bytes = 0;
  uint64_t pids = 0;
  uint64_t output_bytes = 0;
};

struct BashToolText {
  std::string text;
  bool is_error = false;
};

// What the model sees, in the manner of Anthropic's bash tool: the output itself, then a note
// for a non-zero exit status, dropped output, a limit hit, or (is_error) a timeout, OOM kill or
// failure.
BashToolText FormatBashResult(const ExecResult& result, const CommandLimits& limits);

// The one-line reason for a result that is a tool error (timeout, oom, error), else "":
// "killed: memory limit 512M reached", "timeout: ...".
std::string ExecFailureReason(const ExecResult& result, const CommandLimits& limits);

// One line per limit the command ran into without being killed by it ("[pids limit 256
// reached: a process or thread could not be started]"); output and cpu are not among them. A
// process of the command killed by the OOM killer (the command's status 137 with the memory
// limit hit, as bash reports a pipeline's kill) is "killed: memory limit 512M reached", and
// makes a bash result an error.
std::vector<std::string> LimitNotes(const ExecResult& result, const CommandLimits& limits);

// `output` (valid UTF-8) if it has at most max_chars characters; else its first and last
// max_chars/2 characters around one line saying how many were cut and `where` the whole is
// (e.g. "the full output is in /workspace/...", or why it was not kept).
std::string ShapeBashOutput(const std::string& output, size_t max_chars, const std::string& where);

}  // namespace agentbox::mcp
