#include "core/agent_client.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

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

// Bounds the connect and the hello's answer: an agent that accepts but never answers (a pod
// that is gone, a stopped agent) must not hang the caller. Cleared once the hello is through:
// a request may then take as long as its command.
void SetTimeouts(int fd, int seconds) {
  struct timeval tv = {seconds, 0};
  (void)::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  (void)::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

StatusOr<UniqueFd> ConnectTcp(const AgentEndpoint& agent) {
  auto parsed = ParseTcpAddress(std::string_view(agent.address).substr(kTcpAgentPrefix.size()));
  if (!parsed.ok()) return parsed.status().WithContext("agent address " + agent.address);
  const TcpAddress& address = *parsed;
  UniqueFd fd(::socket(address.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  SetTimeouts(fd.get(), kHelloTimeoutSeconds);
  if (::connect(fd.get(), reinterpret_cast<const struct sockaddr*>(&address.addr), address.len) !=
      0) {
    return NoAnswer();
  }
  TuneAgentTcpConnection(fd.get());
  if (!WriteFrame(fd.get(), FrameType::kRequest, HelloRequestToWire(agent.token)).ok()) {
    return NoAnswer();
  }
  auto answer = ReadFrame(fd.get());
  if (!answer.ok() || answer->type != FrameType::kResponse) {
    return Unavailable("the sandbox's agent did not answer the hello (" +
                       (answer.ok() ? std::string("unexpected frame") : answer.status().message()) +
                       ")");
  }
  AB_RETURN_IF_ERROR(ResponseStatus(answer->payload).WithContext("the sandbox's agent"));
  SetTimeouts(fd.get(), 0);
  return fd;
}

}  // namespace

StatusOr<UniqueFd> ConnectAgent(const AgentEndpoint& agent) {
  if (IsTcpEndpoint(agent)) return ConnectTcp(agent);
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

Status ResponseStatus(const std::string& response_json) {
  auto j = nlohmann::json::parse(response_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Internal("malformed response from the agent");
  if (j.value("ok", false)) return OkStatus();
  return Status(StatusCodeFromName(j.value("code", "internal")),
                j.value("error", std::string("the agent reported an unknown error")));
}

}  // namespace agentbox
