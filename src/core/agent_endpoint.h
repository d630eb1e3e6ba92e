// AgentEndpoint: where a sandbox's agent listens and what proves the caller is the host.
//
// A unix socket path (native, docker: only the host can open its directory; the agent also
// refuses a peer inside the box), or "tcp:HOST:PORT" (kubernetes: the pod's IP and the agent's
// port) with the sandbox's own token, sent in the handshake every TCP connection starts with
// (proto/agent_hello.h). SandboxRecord::agent() makes one from a record; every host-side call
// to an agent (core/agent_client.h ConnectAgent and the Agent* functions) takes one.
#pragma once

#include <string>

namespace agentbox {

struct AgentEndpoint {
  std::string address;  // a unix socket path, or "tcp:HOST:PORT"
  std::string token;    // tcp: the sandbox's token; unused on a unix socket
};

}  // namespace agentbox
