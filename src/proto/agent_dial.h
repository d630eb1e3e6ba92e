// The host's TCP connection to a pod's agent (proto/agent_hello.h): connect to "tcp:HOST:PORT",
// say the hello with the sandbox's token, read the agent's answer. One way for every caller:
// an agent request (core/agent_client.h ConnectAgent) and the egress proxy's way to the
// sandbox's egress relay (egress/relay_dial.h).
#pragma once

#include <string_view>

#include "base/status.h"
#include "proto/agent_hello.h"
#include "sys/unique_fd.h"

namespace agentbox {

// Blocking, the connect and the answer each bounded by kHelloTimeoutSeconds (an agent that
// accepts but never answers, a pod that is gone, must not hang the caller), cleared once the
// hello is through: what follows may take as long as its command. Keepalives on
// (TuneAgentTcpConnection). kUnavailable when nothing answers in time; the agent's own status
// (kPermissionDenied for the token, kUnavailable for a relay it has not) when it refuses.
StatusOr<UniqueFd> DialAgentTcp(std::string_view address, std::string_view token,
                                HelloTarget target = HelloTarget::kAgent);

}  // namespace agentbox
