#include "egress/relay_dial.h"

#include <string>

#include "proto/agent_dial.h"

namespace agentbox::egress {

StatusOr<UniqueFd> DialTcpRelay(std::string_view address, std::string_view token) {
  auto fd = DialAgentTcp(address, token, HelloTarget::kEgressRelay);
  // Whatever stops it (no answer, the token or the relay refused), the relay is unavailable.
  if (!fd.ok()) return Unavailable("the sandbox's egress relay: " + fd.status().message());
  return fd;
}

}  // namespace agentbox::egress
