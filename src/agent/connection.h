// One connection to the agent: read the request, dispatch, answer. Runs in a forked handler.
#pragma once

namespace agentbox {

struct AgentContext {
  int workspace_fd = -1;  // O_PATH of /workspace
  int active_execs = 0;   // other handlers alive when this one was forked
};

void ServeConnection(int conn_fd, const AgentContext& context);

}  // namespace agentbox
