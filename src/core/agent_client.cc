#include "core/agent_client.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "proto/agent_dial.h"
#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"

namespace agentbox {

namespace {

Status NoAnswer() {
  return Status(StatusCode::kUnavailable,
                std::string("the sandbox's agent does not answer (") + std::strerror(errno) + ")");
}

StatusOr<UniqueFd> ConnectUnix(const std::string& socket_path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("agent socket path too long: " + socket_path);
  }
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  if (::connect(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0) {
    return NoAnswer();
  }
  return fd;
}

}  // namespace

StatusOr<UniqueFd> ConnectAgent(const AgentEndpoint& agent) {
  if (IsTcpEndpoint(agent)) return DialAgentTcp(agent.address, agent.token);
  return ConnectUnix(agent.address);
}

bool IsTcpEndpoint(const AgentEndpoint& agent) { return IsTcpAgentAddress(agent.address); }

namespace {

StatusOr<nlohmann::json> ReadResponse(int fd, const AgentFrameSink& sink) {
  for (;;) {
    StatusOr<Frame> frame = ReadFrame(fd);
    if (!frame.ok() && frame.status().code() == StatusCode::kNotFound) {
      return Unavailable("the agent closed the connection without an answer");
    }
    if (!frame.ok()) return frame.status();
    if (frame->type != FrameType::kResponse) {
      if (!sink) return Internal("unexpected frame from the agent");
      AB_RETURN_IF_ERROR(sink(*frame));
      continue;
    }
    AB_RETURN_IF_ERROR(ResponseStatus(frame->payload));
    auto response = nlohmann::json::parse(frame->payload, nullptr, /*allow_exceptions=*/false);
    if (!response.is_object()) return Internal("malformed response from the agent");
    return response;
  }
}

}  // namespace

StatusOr<nlohmann::json> CallAgent(int fd, const nlohmann::json& request, std::string_view upload,
                                   const AgentFrameSink& sink) {
  Status sent = WriteFrame(fd, FrameType::kRequest,
                           request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  for (size_t offset = 0; sent.ok() && offset < upload.size(); offset += kMaxFramePayload) {
    sent = WriteFrame(fd, FrameType::kData, upload.substr(offset, kMaxFramePayload));
  }
  StatusOr<nlohmann::json> response = ReadResponse(fd, sink);
  if (sent.ok()) return response;
  // The agent may have answered an error and closed before taking all the data: its answer
  // says more than our broken pipe.
  if (!response.ok() && response.status().code() != StatusCode::kUnavailable) return response;
  return sent;
}

}  // namespace agentbox
