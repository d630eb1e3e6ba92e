// A handler's part in the background-process requests (proto/process_wire.h): `ps` gathered
// from PID 1 and every keeper, and a proc_* request handed, with its connection, to the
// process's keeper through PID 1 (agent/process_router.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "agent/connection.h"

namespace agentbox {

bool IsProcessOp(const std::string& op);

// Answers on conn_fd, or leaves the answer to the keeper it handed conn_fd to.
void HandleProcessRequest(int conn_fd, const nlohmann::json& request, const AgentContext& context);

}  // namespace agentbox
