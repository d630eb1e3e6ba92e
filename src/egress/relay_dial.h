// The host's way to a kubernetes sandbox's egress relay (agent/egress_relay.h): the pod's agent
// port, "tcp:HOST:PORT" as the record keeps it (proto/agent_hello.h), and a hello for the relay
// with the sandbox's token. The connection returned is the relay's, ready for one line of
// proto/relay_wire.h ("listen" or "park ID").
//
// Both the exec's host side (the "listen" that owns the exec's listener, egress/proxy_process.h)
// and the proxy (each "park") dial it: neither holds a socket the pod could reach, and the agent
// refuses the relay to anyone without the token and to every address of the pod's own network.
#pragma once

#include <string_view>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox::egress {

// proto/agent_dial.h's DialAgentTcp with the relay's hello: blocking, each step bounded by
// kHelloTimeoutSeconds; keepalives on, so a pod gone without a word closes the connection within
// about a minute. kUnavailable when the agent does not answer, or refuses the token or the relay
// (its message then).
StatusOr<UniqueFd> DialTcpRelay(std::string_view address, std::string_view token);

}  // namespace agentbox::egress
