#include "agent/control_channel.h"

#include <sys/socket.h>

#include <cerrno>
#include <string>

#include "sys/fd_passing.h"

namespace agentbox {

bool SendControl(int sock, const nlohmann::json& message, int fd) {
  std::string text = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxControlMessage) return false;
  ssize_t n;
  if (fd >= 0) {
    n = sys::SendWithFd(sock, text.data(), text.size(), fd);
  } else {
    do n = ::send(sock, text.data(), text.size(), MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
  }
  return n == static_cast<ssize_t>(text.size());
}

bool ReceiveControl(int sock, nlohmann::json* message, UniqueFd* fd) {
  std::string buffer(kMaxControlMessage, '\0');
  int received = -1;
  ssize_t n = sys::ReceiveWithFd(sock, buffer.data(), buffer.size(), &received);
  fd->reset(received);
  if (n <= 0) return false;
  buffer.resize(static_cast<size_t>(n));
  *message = nlohmann::json::parse(buffer, nullptr, /*allow_exceptions=*/false);
  if (message->is_discarded() || !message->is_object()) {
    fd->reset();
    return false;
  }
  return true;
}

nlohmann::json AskAgent(int control, const nlohmann::json& question, int fd) {
  nlohmann::json answer;
  UniqueFd unused;
  if (!SendControl(control, question, fd) || !ReceiveControl(control, &answer, &unused)) {
    return {
        {"ok", false}, {"code", "unavailable"}, {"error", "the sandbox's agent did not answer"}};
  }
  return answer;
}

}  // namespace agentbox
