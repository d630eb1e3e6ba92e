// CallToolResult values (the `result` of tools/call): text content, structuredContent, isError.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "mcp/bash_tool.h"
#include "proto/exec_result.h"
#include "proto/process_wire.h"

namespace agentbox::mcp {

// One text block; is_error marks a tool error the model should see and react to.
nlohmann::json TextToolResult(const std::string& text, bool is_error = false);

// A failed Status as a tool error (policy denial, missing file, bad arguments...).
nlohmann::json StatusToolResult(const Status& status);

// Text plus structuredContent; per the specification the text is the serialized JSON, for
// clients that do not read structuredContent.
nlohmann::json StructuredToolResult(nlohmann::json structured, bool is_error = false);

// The exec tool's result: structuredContent is docs/contract.md §1's result. A non-zero exit code
// is data; a timeout, an OOM kill or an agentbox error is isError, with the reason first
// ("killed: memory limit 512M reached"); a pids, memory or disk refusal the command survived
// is said in a text block after the JSON.
nlohmann::json ExecToolResult(const ExecResult& result, const CommandLimits& limits);

// A background process's state in words, to follow its id ("p1 exited with code 0"): "is
// running", "exited with code 0", "was killed by signal TERM", "timed out and was killed", "was
// killed: out of memory", "failed: REASON".
std::string ProcessEnding(const ProcessInfo& info);

// The process's command as one line: its argv joined by spaces; a bash tool's background
// command (`/bin/bash -c COMMAND bash`) as its COMMAND.
std::string ProcessCommandLine(const ProcessInfo& info);

// ProcessInfoToJson's object, parsed.
nlohmann::json ProcessJson(const ProcessInfo& info);

// A result about one process: `text` for the model, structuredContent the process.
nlohmann::json ProcessToolResult(const std::string& text, const ProcessInfo& info);

// process_list's result: one line per process ("p1  running  sleep 100", "p2  exited with code
// 0  make"), or a line saying there
// are none; structuredContent {"processes": [...]}.
nlohmann::json ProcessListResult(const std::vector<ProcessInfo>& processes);

// process_output's result. `output` is what came since the session's last read, already shaped;
// `unread_dropped` the bytes the ring dropped before this session read them. The text is the
// output, then a line for the dropped bytes and one for the state ("[p1 is still running]",
// "[p1 exited with code 0]"); structuredContent {"output","from","next","process"}.
nlohmann::json ProcessOutputResult(const std::string& output, uint64_t from, uint64_t next,
                                   uint64_t unread_dropped, const ProcessInfo& info);

}  // namespace agentbox::mcp
