#include "agent/agent_socket.h"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "proto/agent_hello.h"

namespace agentbox {

StatusOr<UniqueFd> BindListeningSocket(const std::string& path, mode_t mode) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("socket path too long (max " +
                           std::to_string(sizeof(addr.sun_path) - 1) + " bytes): " + path);
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus("remove stale " + path);
  // The mode from the start: the umask applies to the file bind() creates.
  mode_t old_umask = ::umask(~mode & 0777);
  int rc = ::bind(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr));
  int bind_errno = errno;
  ::umask(old_umask);
  if (rc != 0) {
    errno = bind_errno;
    return ErrnoStatus("bind " + path);
  }
  if (::listen(fd.get(), 128) != 0) return ErrnoStatus("listen on " + path);
  return fd;
}

StatusOr<UniqueFd> BindTcpListeningSocket(const std::string& host_port) {
  AB_ASSIGN_OR_RETURN(TcpAddress address, ParseTcpAddress(host_port));
  UniqueFd fd(::socket(address.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  const int one = 1;
  (void)::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd.get(), reinterpret_cast<const struct sockaddr*>(&address.addr), address.len) != 0) {
    return ErrnoStatus("bind " + host_port);
  }
  if (::listen(fd.get(), 128) != 0) return ErrnoStatus("listen on " + host_port);
  return fd;
}

namespace {

// The address bytes of an IPv4 or IPv6 socket address (an IPv4-mapped IPv6 one as IPv4).
std::string AddressBytes(const struct sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const struct sockaddr_in*>(sa);
    return std::string(reinterpret_cast<const char*>(&v4->sin_addr), 4);
  }
  if (sa->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const struct sockaddr_in6*>(sa);
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
      return std::string(reinterpret_cast<const char*>(&v6->sin6_addr) + 12, 4);
    }
    return std::string(reinterpret_cast<const char*>(&v6->sin6_addr), 16);
  }
  return {};
}

bool IsLoopback(const std::string& bytes) {
  static const std::string kV6Loopback = std::string(15, '\0') + '\1';
  return (bytes.size() == 4 && bytes[0] == 127) || bytes == kV6Loopback;
}

}  // namespace

bool IsPeerInOurNetwork(int conn_fd) {
  struct sockaddr_storage peer = {}, local = {};
  socklen_t peer_len = sizeof(peer), local_len = sizeof(local);
  if (::getpeername(conn_fd, reinterpret_cast<struct sockaddr*>(&peer), &peer_len) != 0 ||
      ::getsockname(conn_fd, reinterpret_cast<struct sockaddr*>(&local), &local_len) != 0) {
    return true;  // cannot tell: refused
  }
  const std::string from = AddressBytes(reinterpret_cast<struct sockaddr*>(&peer));
  if (from.empty() || IsLoopback(from) ||
      from == AddressBytes(reinterpret_cast<struct sockaddr*>(&local))) {
    return true;
  }
  struct ifaddrs* addresses = nullptr;
  if (::getifaddrs(&addresses) != 0) return true;
  bool ours = false;
  for (struct ifaddrs* a = addresses; a != nullptr && !ours; a = a->ifa_next) {
    ours = a->ifa_addr != nullptr && AddressBytes(a->ifa_addr) == from;
  }
  ::freeifaddrs(addresses);
  return ours;
}

pid_t PeerPidInOurNamespace(int conn_fd) {
  struct ucred cred = {};
  socklen_t len = sizeof(cred);
  if (::getsockopt(conn_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
  return cred.pid;
}

bool IsHostPeer(pid_t peer) {
  // 0: outside our PID namespace (the kernel's answer for the host). 1: ourselves, which never
  // connects to its own socket; it is how gVisor (runsc) reports a peer from the host side of a
  // host unix socket. Every process inside the box has another pid.
  return peer == 0 || peer == 1;
}

}  // namespace agentbox
