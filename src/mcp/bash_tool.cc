#include "mcp/bash_tool.h"

#include <cstdio>

#include "base/utf8.h"
#include "spec/units.h"

namespace agentbox::mcp {
namespace {

// Sourced by bash through BASH_ENV before the command. The state file is plain bash (export -p,
// declare -p, declare -f, alias -p), so restoring it is one `source`. Variables bash had at
// start (its own and the environment's) are the baseline: of those only the exported ones are
// saved (export -p), so bash's specials (BASH_*, RANDOM, PPID...) are never written back;
// every other variable is, exported or not; so is every function but the wrapper's own.
// PWD/OLDPWD/SHLVL/_ are bash's own; the cwd travels in its own file so a removed directory
// falls back to /workspace instead of failing. The save runs with set +e/+u: a `set -e` the
// command left must not cut it short.
constexpr const char* kPrologue = R"sh(unset BASH_ENV
__agentbox_state=/tmp/.agentbox_bash
__agentbox_base=$'\n'"$(compgen -v)"$'\n'
mkdir -p "$__agentbox_state" 2>/dev/null
if [ ! -e "$__agentbox_state/restore" ]; then
  printf '%s' "$__agentbox_restore" > "$__agentbox_state/restore.$$" 2>/dev/null &&
    mv -f "$__agentbox_state/restore.$$" "$__agentbox_state/restore" 2>/dev/null
fi
unset __agentbox_restore
if [ -r "$__agentbox_state/env" ]; then . "$__agentbox_state/env" >/dev/null 2>&1; fi
cd -- "$(cat "$__agentbox_state/cwd" 2>/dev/null || echo /workspace)" 2>/dev/null || cd /workspace 2>/dev/null
__agentbox_save() {
  __agentbox_rc=$?
  set +e +u +o pipefail
  local IFS=$' \t\n' __agentbox_v
  pwd > "$__agentbox_state/cwd" 2>/dev/null
  {
    export -p | grep -Ev '^declare -x (PWD|OLDPWD|SHLVL|_)='
    for __agentbox_v in $(compgen -v); do
      case $__agentbox_v in __agentbox_*|BASH*|FUNCNAME|PIPESTATUS|_|IFS|PWD|OLDPWD|SHLVL) continue ;; esac
      case $__agentbox_base in *$'\n'"$__agentbox_v"$'\n'*) continue ;; esac
      declare -p "$__agentbox_v" 2>/dev/null
    done
    for __agentbox_v in $(compgen -A function); do
      case $__agentbox_v in __agentbox_*) ;; *) declare -f "$__agentbox_v" ;; esac
    done
    alias -p
  } > "$__agentbox_state/env.new" 2>/dev/null && mv -f "$__agentbox_state/env.new" "$__agentbox_state/env"
  exit $__agentbox_rc
}
trap __agentbox_save EXIT
exec 2>&1 </dev/null
shopt -s expand_aliases
)sh";

// What a background command sources (BASH_ENV) before it runs: the state the last call saved,
// read only. It saves nothing when it ends: a background command runs alongside later calls,
// whose state it must not overwrite. The prologue above writes it when it is missing (no single
// quote in it: it travels inside one).
constexpr const char* kBackgroundRestore = R"sh(unset BASH_ENV
if [ -r /tmp/.agentbox_bash/env ]; then . /tmp/.agentbox_bash/env >/dev/null 2>&1; fi
cd -- "$(cat /tmp/.agentbox_bash/cwd 2>/dev/null || echo /workspace)" 2>/dev/null || cd /workspace 2>/dev/null
shopt -s expand_aliases
)sh";

// The prologue, with the background restore script in a variable it writes out (after its
// first line, `unset BASH_ENV`).
const std::string& Prologue() {
  static const std::string* const kText = [] {
    std::string text = kPrologue;
    text.insert(text.find('\n') + 1,
                std::string("__agentbox_restore='") + kBackgroundRestore + "'\n");
    return new std::string(std::move(text));
  }();
  return *kText;
}

void Note(std::string& text, const std::string& line) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += line;
}

// A process of the command was killed by the OOM killer while the command itself was not: bash
// reports its pipeline's SIGKILL as 137, and the cgroup saw the memory limit.
bool ChildOomKilled(const ExecResult& result) {
  return result.reason != ExitReason::kOom && result.HasLimitHit(kLimitMemory) &&
         result.exit_code == 128 + 9;
}

std::string MemoryLimit(const CommandLimits& limits) {
  return limits.memory_bytes > 0 ? "memory limit " + FormatSize(limits.memory_bytes)
                                 : "the sandbox's memory limit";
}

std::string Thousands(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

BashInvocation BashCommand(const std::string& command) {
  // $0 is "bash", as in the reference shell's messages; the command is never spliced into text.
  return {{"/bin/bash", "-c", command, "bash"}, {{"BASH_ENV", "/proc/self/fd/0"}}, Prologue()};
}

BashInvocation BashBackgroundCommand(const std::string& command) {
  return {{"/bin/bash", "-c", command, "bash"}, {{"BASH_ENV", kBashRestoreScript}}, ""};
}

std::vector<std::string> BashRestartArgv() { return {"/bin/rm", "-rf", kBashStateDir}; }

std::string ExecFailureReason(const ExecResult& result, const CommandLimits& limits) {
  switch (result.reason) {
    case ExitReason::kTimeout:
      return "timeout: the command did not finish within " + FormatSeconds(limits.timeout_seconds) +
             " seconds and was killed";
    case ExitReason::kOom:
      return "killed: " + MemoryLimit(limits) + " reached";
    case ExitReason::kError:
      return "error: " + result.error;
    default:
      return "";
  }
}

std::vector<std::string> LimitNotes(const ExecResult& result, const CommandLimits& limits) {
  std::vector<std::string> notes;
  if (ChildOomKilled(result)) {
    notes.push_back("killed: " + MemoryLimit(limits) + " reached");
  } else if (result.reason != ExitReason::kOom && result.HasLimitHit(kLimitMemory)) {
    notes.push_back("[" + MemoryLimit(limits) +
                    " reached: an allocation was refused or a process was killed]");
  }
  if (result.HasLimitHit(kLimitPids)) {
    notes.push_back(limits.pids > 0 ? "[pids limit " + std::to_string(limits.pids) +
                                          " reached: a process or thread could not be started]"
                                    : "[pids limit reached: a process or thread could not be "
                                      "started]");
  }
  if (result.HasLimitHit(kLimitDisk)) {
    const bool known = result.disk_limit && result.disk_limit->limit_bytes != kNoDiskLimit;
    notes.push_back(known ? "[disk limit " + FormatSize(result.disk_limit->limit_bytes) +
                                " reached: a write to /workspace was refused]"
                          : "[disk limit reached: a write to /workspace was refused]");
  }
  // What the command changed and which walls refused it, so the model need not guess.
  if (std::string effects = EffectsSummaryLine(result.effects); !effects.empty()) {
    notes.push_back("[" + effects + "]");
  }
  // "denied by policy", so the model does not read a name-resolution failure as a flaky network.
  const std::string denied = NetworkNotes(result);
  for (size_t start = 0, end; start < denied.size(); start = end + 1) {
    end = denied.find('\n', start);
    notes.push_back(denied.substr(start, end - start));
  }
  return notes;
}

BashToolText FormatBashResult(const ExecResult& result, const CommandLimits& limits) {
  BashToolText out;
  out.text = SanitizeUtf8(result.stdout_data + result.stderr_data);
  if (result.stdout_truncated || result.stderr_truncated) {
    Note(out.text, limits.output_bytes > 0
                       ? "[output truncated: the sandbox's output limit of " +
                             FormatSize(limits.output_bytes) +
                             " per stream was reached; the rest was not kept]"
                       : "[output truncated: the sandbox's output limit was reached]");
  }
  for (const std::string& note : LimitNotes(result, limits)) Note(out.text, note);
  // An OOM kill inside the shell is as much a failure as one of the shell itself.
  out.is_error = ChildOomKilled(result);
  std::string failure = ExecFailureReason(result, limits);
  if (!failure.empty()) {
    out.is_error = true;
    Note(out.text, failure);
  } else if (result.exit_code != 0) {
    Note(out.text, "[exit code: " + std::to_string(result.exit_code) + "]");
  }
  if (result.rollback && result.rollback->rolled_back) {
    Note(out.text, "[rolled back: /workspace is as it was before the command]");
  } else if (result.rollback && !result.rollback->error.empty()) {
    Note(out.text, "[the rollback failed: " + result.rollback->error + "]");
  }
  return out;
}

std::string ShapeBashOutput(const std::string& output, size_t max_chars, const std::string& where) {
  const size_t total = Utf8Length(output);
  if (total <= max_chars) return output;
  const size_t head = Utf8PrefixBytes(output, max_chars / 2);
  const size_t tail = Utf8SuffixStart(output, max_chars - max_chars / 2);
  const size_t cut = total - max_chars;
  std::string marker = "\n[... " + Thousands(cut) + " of " + Thousands(total) +
                       " characters cut from the middle; " + where + " ...]\n";
  return output.substr(0, head) + marker + output.substr(tail);
}

}  // namespace agentbox::mcp
