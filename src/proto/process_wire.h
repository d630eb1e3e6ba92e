// Background processes on the agent protocol (proto/agent_protocol.h): what the host and the
// agent say about a command started with `exec --detach`.
//
// A detached exec is answered at once with the process's info; the command runs on, its output
// kept in a bounded ring in the sandbox (agent/process_keeper.h), until it exits, is killed, or
// the sandbox ends. The other requests name it by its id ("p1", "p2", ... in start order).
//   ps                                  -> {"ok":true,"processes":[info..]}
//   proc_logs  {proc,follow,since?}     -> kStdout/kStderr frames (the ring from `since`, and
//                                          with follow what comes until the process exits),
//                                          then {"ok":true,"process":info}
//   proc_wait  {proc,timeout_ms?}       -> when it has exited (or at timeout_ms, still
//                                          running): {"ok":true,"process":info}
//   proc_kill  {proc,signal}            -> {"ok":true,"process":info}
//   proc_stdin {proc,size,close?}       (then `size` bytes as kData frames) -> {"ok":true,...}
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "proto/exec_result.h"

namespace agentbox {

enum class ProcessState { kRunning, kExited };
const char* ProcessStateName(ProcessState state);

// How many background processes one sandbox keeps (running or exited, with their output):
// starting one more removes the oldest exited one, or is refused when all of them run.
inline constexpr size_t kMaxBackgroundProcesses = 32;
// Input queued for a process that does not read its stdin.
inline constexpr uint64_t kMaxPendingStdinBytes = 1 << 20;

struct ProcessInfo {
  std::string id;
  std::vector<std::string> argv;
  ProcessState state = ProcessState::kRunning;
  double started_at = 0;       // unix seconds
  bool stdin_open = false;     // started interactive and its stdin not closed yet
  uint64_t output_bytes = 0;   // both streams, since it started; offsets of proc_logs count these
  uint64_t dropped_bytes = 0;  // the oldest of them, gone from the ring (its size: output_limit)
  std::optional<ExecResult> result;  // once exited (no stdout/stderr: they are the ring's)
};

// {"id","argv","state","started_at","stdin_open","output_bytes","dropped_bytes","result"?}.
// On the wire "result" is the exec result as ExecResultToWire has it; strict on the way in
// (kInternal naming the field: it comes from inside the sandbox).
nlohmann::json ProcessInfoToWire(const ProcessInfo& info);
StatusOr<ProcessInfo> ProcessInfoFromWire(const nlohmann::json& json);
// The API's object, same keys: "result" as docs/contract.md §1 has it, without stdout and stderr
// (they are the process's logs).
std::string ProcessInfoToJson(const ProcessInfo& info);

// A process id as the host names it: "p" and a number. kInvalidArgument otherwise.
Status CheckProcessId(std::string_view id);

// The signal a `kill -s` names: a number, or a name with or without "SIG" (case ignored).
// SIGSTOP is refused: it would stop the process's keeper, not the process (use TSTP).
StatusOr<int> ParseSignal(std::string_view text);
// "TERM" for 15 (the name without "SIG"); the number for one without a name.
std::string SignalName(int signal);

}  // namespace agentbox
