#include "app/cli_sandbox_result.h"

#include <algorithm>

#include "app/cli.h"

namespace agentbox {

namespace {

// A result's exit code is a process exit status: keep it in 0..255 whatever a backend returns.
int ExitStatusOf(const ExecResult& result) { return std::clamp(result.exit_code, 0, 255); }

// Without --json the exit status alone cannot tell an OOM kill from a kill -9, or say that
// output was dropped: one line on stderr names what ended the command and the limits it hit.
std::string WhatHappened(const ExecResult& result) {
  std::string what;
  if (result.reason == ExitReason::kTimeout) what = "the wall-clock limit (--timeout) ended it";
  if (result.reason == ExitReason::kOom) what = "killed by the out-of-memory killer (--memory)";
  std::string limits;
  for (const std::string& limit : result.limits_hit) {
    if (limit == kLimitTimeout) continue;
    limits += (limits.empty() ? "" : ", ") + limit;
  }
  if (!limits.empty()) what += (what.empty() ? "" : "; ") + std::string("limits hit: ") + limits;
  return what;
}

}  // namespace

int ReportResult(const ExecResult& result, bool json) {
  if (json) WriteStdout(ExecResultToJson(result) + "\n");
  if (result.reason == ExitReason::kError) {
    PrintError(result.error);
    return ExitStatusOf(result);
  }
  if (!json) {
    // "denied by policy", not the command's own "Temporary failure in name resolution".
    WriteStderr(NetworkNotes(result));
    if (std::string what = WhatHappened(result); !what.empty()) PrintError(what);
    // What it changed and which walls stopped it, in one line (--json has it all).
    if (std::string effects = EffectsSummaryLine(result.effects); !effects.empty()) {
      PrintError(effects);
    }
    if (result.rollback && result.rollback->rolled_back) {
      PrintError("rolled back: the workspace is as it was before the command");
    } else if (result.rollback && !result.rollback->error.empty()) {
      PrintError("the rollback failed: " + result.rollback->error);
    }
  }
  return ExitStatusOf(result);
}

}  // namespace agentbox
