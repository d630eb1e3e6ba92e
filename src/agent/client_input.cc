#include "agent/client_input.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace agentbox {

ClientInputThread::~ClientInputThread() {
  if (thread_.joinable()) {
    ::shutdown(conn_fd_, SHUT_RD);
    thread_.join();
  }
}

StatusOr<int> ClientInputThread::Start(int conn_fd, std::function<void(int)> loop) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return ErrnoStatus("input: socketpair");
  }
  client_gone_.reset(pair[0]);
  conn_fd_ = conn_fd;
  try {
    // The thread's end of the pair closes as the loop returns: the supervision reads EOF.
    thread_ = std::thread(
        [loop = std::move(loop), conn_fd, hangup = UniqueFd(pair[1])] { loop(conn_fd); });
  } catch (const std::system_error&) {
    return Unavailable("no thread for the command's input");
  }
  return client_gone_.get();
}

bool WriteWhileClientStays(int fd, int conn_fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return false;
    struct pollfd fds[2] = {{fd, POLLOUT, 0}, {conn_fd, POLLRDHUP, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return false;
    if (fds[1].revents) return false;
  }
  return true;
}

}  // namespace agentbox
