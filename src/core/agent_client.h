// Host side of the agent protocol (see proto/agent_protocol.h): connect, send one request.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"
#include "core/agent_endpoint.h"
#include "proto/agent_protocol.h"
#include "proto/exec_result.h"
#include "proto/output_capture.h"
#include "sys/unique_fd.h"

namespace agentbox {

// Connects to the agent: its unix socket, or "tcp:HOST:PORT" followed by the hello with the
// endpoint's token (proto/agent_hello.h), so the fd returned is ready for one request either
// way. kUnavailable when nothing listens (a dead sandbox) or the agent does not answer the hello
// in time; kPermissionDenied when it refuses the token.
StatusOr<UniqueFd> ConnectAgent(const AgentEndpoint& agent);

// True for an endpoint on TCP: no fd can ride along with a request (an exec's stdin goes as
// frames, ExecRequest::stdin_frames).
bool IsTcpEndpoint(const AgentEndpoint& agent);

// A frame before the response (output or data); an error Status refuses it and ends the call.
using AgentFrameSink = std::function<Status(const Frame&)>;

// Sends `request` (then `upload` as kData frames) on fd and reads frames up to the final
// kResponse, which must be ok; the frames before it go to `sink` (none expected when null).
// The agent runs inside the sandbox, so what it sends is checked like any untrusted input.
StatusOr<nlohmann::json> CallAgent(int fd, const nlohmann::json& request,
                                   std::string_view upload = {},
                                   const AgentFrameSink& sink = nullptr);

}  // namespace agentbox
