#include "core/agent_client.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "proto/agent_protocol.h"

namespace agentbox {

StatusOr<UniqueFd> ConnectAgent(const std::string& socket_path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("agent socket path too long: " + socket_path);
  }
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  if (::connect(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0) {
    return Status(StatusCode::kUnavailable, std::string("the sandbox's agent does not answer (") +
                                                std::strerror(errno) + ")");
  }
  return fd;
}

Status ResponseStatus(const std::string& response_json) {
  auto j = nlohmann::json::parse(response_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Internal("malformed response from the agent");
  if (j.value("ok", false)) return OkStatus();
  return Status(StatusCodeFromName(j.value("code", "internal")),
                j.value("error", std::string("the agent reported an unknown error")));
}

}  // namespace agentbox
