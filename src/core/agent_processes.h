// Host side of the background processes (proto/process_wire.h): one request per connection to
// the sandbox's agent.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "core/agent_endpoint.h"
#include "core/agent_exec.h"
#include "proto/exec_wire.h"
#include "proto/output_capture.h"
#include "proto/process_wire.h"

namespace agentbox {

// What `logs` read: the process as it was at the end, and which of its output offsets the
// frames covered ([from, next): `since` again with `next` gets only what came after).
struct ProcessLogs {
  ProcessInfo process;
  uint64_t from = 0;
  uint64_t next = 0;
};

// request.detach must be set. The info of the started process; one that could not be executed
// is already exited, its result saying why.
StatusOr<ProcessInfo> AgentStartProcess(const AgentEndpoint& agent, const ExecRequest& request);
StatusOr<std::vector<ProcessInfo>> AgentListProcesses(const AgentEndpoint& agent);
// Output frames go to `output` as they come; with follow, until the process exits (or
// `cancellation` stops the reading: the process runs on).
StatusOr<ProcessLogs> AgentProcessLogs(const AgentEndpoint& agent, const std::string& id,
                                       bool follow, uint64_t since, OutputCapture& output,
                                       ExecCancellation* cancellation = nullptr);
// Until it exits, or for timeout_seconds at most (0: no bound), after which it is returned
// still running.
StatusOr<ProcessInfo> AgentWaitProcess(const AgentEndpoint& agent, const std::string& id,
                                       double timeout_seconds,
                                       ExecCancellation* cancellation = nullptr);
StatusOr<ProcessInfo> AgentSignalProcess(const AgentEndpoint& agent, const std::string& id,
                                         int signal);
// At most kMaxPendingStdinBytes at once; close: its stdin is closed after them (EOF).
StatusOr<ProcessInfo> AgentWriteProcessStdin(const AgentEndpoint& agent, const std::string& id,
                                             const std::string& data, bool close);

}  // namespace agentbox
