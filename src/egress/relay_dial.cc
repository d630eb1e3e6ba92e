#include "egress/relay_dial.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"

namespace agentbox::egress {
namespace {

void SetTimeouts(int fd, int seconds) {
  struct timeval tv = {seconds, 0};
  (void)::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  (void)::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

Status NoAnswer(const std::string& what) {
  return Unavailable("the sandbox's egress relay: " + what + " (" + std::strerror(errno) + ")");
}

// The agent's answer to the hello: {"ok":true}, else its error.
Status HelloAnswer(int fd) {
  auto answer = ReadFrame(fd);
  if (!answer.ok() || answer->type != FrameType::kResponse) {
    return Unavailable("the sandbox's agent did not answer the egress relay's hello");
  }
  auto body = nlohmann::json::parse(answer->payload, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.value("ok", false)) return OkStatus();
  const std::string why = body.is_object() ? body.value("error", "") : "";
  return Unavailable("the sandbox's agent refused the egress relay's hello" +
                     (why.empty() ? std::string() : ": " + why));
}

}  // namespace

StatusOr<UniqueFd> DialTcpRelay(std::string_view address, std::string_view token) {
  if (!IsTcpAgentAddress(address)) {
    return InvalidArgument("the egress relay's address is no tcp:HOST:PORT: " +
                           std::string(address));
  }
  AB_ASSIGN_OR_RETURN(TcpAddress to, ParseTcpAddress(address.substr(kTcpAgentPrefix.size())));
  UniqueFd fd(::socket(to.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  SetTimeouts(fd.get(), kHelloTimeoutSeconds);
  if (::connect(fd.get(), reinterpret_cast<const struct sockaddr*>(&to.addr), to.len) != 0) {
    return NoAnswer("connect to " + std::string(address));
  }
  TuneAgentTcpConnection(fd.get());
  if (!WriteFrame(fd.get(), FrameType::kRequest,
                  HelloRequestToWire(token, HelloTarget::kEgressRelay))
           .ok()) {
    return NoAnswer("send the hello");
  }
  AB_RETURN_IF_ERROR(HelloAnswer(fd.get()));
  SetTimeouts(fd.get(), 0);
  return fd;
}

}  // namespace agentbox::egress
