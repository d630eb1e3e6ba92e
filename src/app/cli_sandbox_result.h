// Rendering an ExecResult the way `run` does, for every subcommand that runs a command.
#pragma once

#include "core/exec_result.h"
#include "core/output_capture.h"

namespace agentbox {

// Moves kept output and truncation flags from the capture into the result (JSON mode).
void TakeOutput(const OutputCapture& capture, bool json, ExecResult* result);
// Prints the JSON result (json mode) and the error line; returns the exit status.
int ReportResult(const ExecResult& result, bool json);

}  // namespace agentbox
