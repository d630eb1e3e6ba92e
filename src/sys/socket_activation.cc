#include "sys/socket_activation.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace agentbox {
namespace {

constexpr int kListenFdsStart = 3;  // SD_LISTEN_FDS_START

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

Status Describe(ActivatedSocket& out) {
  const int fd = out.fd.get();
  int type = 0, listening = 0;
  socklen_t len = sizeof(type);
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) {
    return InvalidArgument("the socket systemd handed over (fd 3) is not a stream socket");
  }
  len = sizeof(listening);
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) {
    return InvalidArgument("the socket systemd handed over (fd 3) is not listening (Accept=no)");
  }
  struct sockaddr_storage addr = {};
  len = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<struct sockaddr*>(&addr), &len) != 0) {
    return ErrnoStatus("getsockname of the socket systemd handed over");
  }
  char host[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_UNIX) {
    const auto* un = reinterpret_cast<const struct sockaddr_un*>(&addr);
    out.unix_socket = true;
    if (len > offsetof(struct sockaddr_un, sun_path) && un->sun_path[0] != '\0') {
      out.path = std::string(un->sun_path, strnlen(un->sun_path, sizeof(un->sun_path)));
    }
  } else if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const struct sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
    out.unix_socket = false;
    out.host = host;
    out.port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const struct sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
    out.unix_socket = false;
    out.host = host;
    out.port = ntohs(in6->sin6_port);
  } else {
    return InvalidArgument("the socket systemd handed over is neither unix nor TCP");
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::optional<ActivatedSocket>> TakeActivatedSocket() {
  const std::string pid = Env("LISTEN_PID"), fds = Env("LISTEN_FDS");
  if (pid.empty() || pid != std::to_string(::getpid())) return std::optional<ActivatedSocket>();
  for (const char* name : {"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"}) ::unsetenv(name);
  if (fds != "1") {
    return InvalidArgument("systemd handed over " + (fds.empty() ? "no" : fds) +
                           " sockets (LISTEN_FDS); serve takes exactly one");
  }
  ActivatedSocket socket;
  socket.fd = UniqueFd(kListenFdsStart);
  if (::fcntl(kListenFdsStart, F_SETFD, FD_CLOEXEC) != 0) {
    return ErrnoStatus("fd 3 from systemd (LISTEN_FDS)");
  }
  AB_RETURN_IF_ERROR(Describe(socket));
  return std::optional<ActivatedSocket>(std::move(socket));
}

}  // namespace agentbox
