// Host side of the agent protocol (see proto/agent_protocol.h): connect, send one request.
#pragma once

#include <string>

#include "base/status.h"
#include "proto/exec_result.h"
#include "proto/output_capture.h"
#include "sys/unique_fd.h"

namespace agentbox {

// Connects to the agent's unix socket. kUnavailable when nothing listens (a dead sandbox).
StatusOr<UniqueFd> ConnectAgent(const std::string& socket_path);

// Parses a {"ok":false,"code":..,"error":..} response into a Status; OkStatus for ok:true.
Status ResponseStatus(const std::string& response_json);

}  // namespace agentbox
