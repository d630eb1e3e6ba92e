// What an OutputCapture kept and dropped, moved into the ExecResult every front end renders.
#pragma once

#include "proto/exec_result.h"
#include "proto/output_capture.h"

namespace agentbox {

// Moves kept output and truncation flags from the capture into the result (JSON mode). Without
// json, stderr_data becomes the tail of what was forwarded (empty unless forwarding): never
// shown again, read only for agentbox's own notes (NetworkNotes).
void TakeOutput(const OutputCapture& capture, bool json, ExecResult* result);

}  // namespace agentbox
