#include "sys/send_all.h"

#include <sys/socket.h>

#include <cerrno>

namespace agentbox::sys {

Status SendAll(int sock, const char* data, size_t size, const std::string& what) {
  while (size > 0) {
    ssize_t n = ::send(sock, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(what);
    data += n;
    size -= static_cast<size_t>(n);
  }
  return OkStatus();
}

}  // namespace agentbox::sys
