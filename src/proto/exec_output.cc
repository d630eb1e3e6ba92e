#include "proto/exec_output.h"

namespace agentbox {

// The capture is the source of truth for what was kept and dropped, whichever backend ran.
void TakeOutput(const OutputCapture& capture, bool json, ExecResult* result) {
  // Forwarded output was the user's to read; its stderr's tail is kept for agentbox's notes.
  if (!json) result->stderr_data = capture.forwarded_stderr_tail();
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

}  // namespace agentbox
