#include "agent/agent_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

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
