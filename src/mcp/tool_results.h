// CallToolResult values (the `result` of tools/call): text content, structuredContent, isError.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "mcp/bash_tool.h"
#include "proto/exec_result.h"

namespace agentbox::mcp {

// One text block; is_error marks a tool error the model should see and react to.
nlohmann::json TextToolResult(const std::string& text, bool is_error = false);

// A failed Status as a tool error (policy denial, missing file, bad arguments...).
nlohmann::json StatusToolResult(const Status& status);

// Text plus structuredContent; per the specification the text is the serialized JSON, for
// clients that do not read structuredContent.
nlohmann::json StructuredToolResult(nlohmann::json structured, bool is_error = false);

// The exec tool's result: structuredContent is the CONTRACT §1 JSON result. A non-zero exit code
// is data; a timeout, an OOM kill or an agentbox error is isError, with the reason first
// ("killed: memory limit 512M reached"); a pids, memory or disk refusal the command survived
// is said in a text block after the JSON.
nlohmann::json ExecToolResult(const ExecResult& result, const CommandLimits& limits);

}  // namespace agentbox::mcp
