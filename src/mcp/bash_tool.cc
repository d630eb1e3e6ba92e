#include "mcp/bash_tool.h"

#include <cmath>
#include <cstdio>

#include "base/utf8.h"

namespace agentbox::mcp {
namespace {

// $1 is the user's command. The state file is plain bash (export -p, declare -f, alias -p), so
// restoring it is one `source`. PWD/OLDPWD/SHLVL/_ are bash's own and are left to bash; the cwd
// travels in its own file so a removed directory falls back to /workspace instead of failing.
constexpr const char* kBashScript = R"sh(__agentbox_state=/tmp/.agentbox_bash
mkdir -p "$__agentbox_state" 2>/dev/null
if [ -r "$__agentbox_state/env" ]; then . "$__agentbox_state/env" >/dev/null 2>&1; fi
cd -- "$(cat "$__agentbox_state/cwd" 2>/dev/null || echo /workspace)" 2>/dev/null || cd /workspace
__agentbox_save() {
  __agentbox_rc=$?
  pwd > "$__agentbox_state/cwd" 2>/dev/null
  { export -p | grep -Ev '^declare -x (PWD|OLDPWD|SHLVL|_)='; declare -f; alias -p; } \
    > "$__agentbox_state/env.new" 2>/dev/null && mv -f "$__agentbox_state/env.new" "$__agentbox_state/env"
  exit $__agentbox_rc
}
trap __agentbox_save EXIT
exec 2>&1 </dev/null
shopt -s expand_aliases
__agentbox_command=$1
shift
eval "$__agentbox_command"
)sh";

std::string Seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", seconds);
  return text;
}

}  // namespace

std::vector<std::string> BashCommandArgv(const std::string& command) {
  return {"/bin/bash", "-c", kBashScript, "agentbox-bash", command};
}

std::vector<std::string> BashRestartArgv() { return {"/bin/rm", "-rf", kBashStateDir}; }

std::string ExecFailureReason(const ExecResult& result, double timeout_seconds) {
  switch (result.reason) {
    case ExitReason::kTimeout:
      return "timeout: the command did not finish within " + Seconds(timeout_seconds) +
             " seconds and was killed";
    case ExitReason::kOom:
      return "oom: the command ran out of memory and was killed";
    case ExitReason::kError:
      return "error: " + result.error;
    default:
      return "";
  }
}

BashToolText FormatBashResult(const ExecResult& result, double timeout_seconds) {
  BashToolText out;
  out.text = SanitizeUtf8(result.stdout_data + result.stderr_data);
  auto note = [&out](const std::string& line) {
    if (!out.text.empty() && out.text.back() != '\n') out.text += '\n';
    out.text += line;
  };
  if (result.stdout_truncated || result.stderr_truncated) {
    note("[output truncated: the sandbox's output limit was reached]");
  }
  std::string failure = ExecFailureReason(result, timeout_seconds);
  if (!failure.empty()) {
    out.is_error = true;
    note(failure);
  } else if (result.exit_code != 0) {
    note("[exit code: " + std::to_string(result.exit_code) + "]");
  }
  return out;
}

}  // namespace agentbox::mcp
