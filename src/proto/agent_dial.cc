#include "proto/agent_dial.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

Status NoAnswer() {
  return Status(StatusCode::kUnavailable,
                std::string("the sandbox's agent does not answer (") + std::strerror(errno) + ")");
}

void SetTimeouts(int fd, int seconds) {
  struct timeval tv = {seconds, 0};
  (void)::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  (void)::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

}  // namespace

StatusOr<UniqueFd> DialAgentTcp(std::string_view address, std::string_view token,
                                HelloTarget target) {
  if (!IsTcpAgentAddress(address)) {
    return InvalidArgument("agent address " + std::string(address) + " is no tcp:HOST:PORT");
  }
  auto parsed = ParseTcpAddress(address.substr(kTcpAgentPrefix.size()));
  if (!parsed.ok()) return parsed.status().WithContext("agent address " + std::string(address));
  const TcpAddress& to = *parsed;
  UniqueFd fd(::socket(to.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  SetTimeouts(fd.get(), kHelloTimeoutSeconds);
  if (::connect(fd.get(), reinterpret_cast<const struct sockaddr*>(&to.addr), to.len) != 0) {
    return NoAnswer();
  }
  TuneAgentTcpConnection(fd.get());
  if (!WriteFrame(fd.get(), FrameType::kRequest, HelloRequestToWire(token, target)).ok()) {
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

}  // namespace agentbox
