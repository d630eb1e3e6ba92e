#include "app/cli_sandbox_result.h"

#include <algorithm>

#include "app/cli.h"

namespace agentbox {

// The capture is the source of truth for what was kept and dropped, whichever backend ran.
void TakeOutput(const OutputCapture& capture, bool json, ExecResult* result) {
  for (OutputStream s : {OutputStream::kStdout, OutputStream::kStderr}) {
    const bool is_out = s == OutputStream::kStdout;
    if (json && !capture.kept(s).empty()) {
      (is_out ? result->stdout_data : result->stderr_data) = capture.kept(s);
    }
    if (capture.truncated(s)) {
      (is_out ? result->stdout_truncated : result->stderr_truncated) = true;
      result->AddLimitHit(kLimitOutput);
    }
  }
}

// A result's exit code is a process exit status: keep it in 0..255 whatever a backend returns.
static int ExitStatusOf(const ExecResult& result) { return std::clamp(result.exit_code, 0, 255); }

int ReportResult(const ExecResult& result, bool json) {
  if (json) WriteStdout(ExecResultToJson(result) + "\n");
  if (result.reason == ExitReason::kError) PrintError(result.error);
  return ExitStatusOf(result);
}

}  // namespace agentbox
