// Rendering an ExecResult the way `run` does, for every subcommand that runs a command.
// (TakeOutput, which serve shares, is proto/exec_output.h.)
#pragma once

#include "proto/exec_result.h"

namespace agentbox {

// Prints the JSON result (json mode) and the error line; returns the exit status.
int ReportResult(const ExecResult& result, bool json);

}  // namespace agentbox
