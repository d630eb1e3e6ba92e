#include "agent/stdin_frames.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <system_error>

#include "proto/agent_protocol.h"

namespace agentbox {

StatusOr<std::unique_ptr<StdinFrames>> StdinFrames::Open() {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return ErrnoStatus("stdin: pipe");
  UniqueFd read(p[0]), write(p[1]);
  // Never blocks: a command that reads no input must not stall the thread's shutdown.
  if (::fcntl(write.get(), F_SETFL, O_NONBLOCK) != 0) return ErrnoStatus("stdin: fcntl");
  return std::unique_ptr<StdinFrames>(new StdinFrames(std::move(read), std::move(write)));
}

StdinFrames::~StdinFrames() {
  if (thread_.joinable()) {
    ::shutdown(conn_fd_, SHUT_RD);  // wakes a blocked ReadFrame or poll: the thread ends
    thread_.join();
  }
}

StatusOr<int> StdinFrames::Serve(int conn_fd) {
  read_.reset();
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return ErrnoStatus("stdin: socketpair");
  }
  client_gone_.reset(pair[0]);
  UniqueFd hangup(pair[1]);
  conn_fd_ = conn_fd;
  try {
    thread_ = std::thread(&StdinFrames::Loop, this, conn_fd, std::move(hangup));
  } catch (const std::system_error&) {
    return Unavailable("stdin: no thread for the command's input");
  }
  return client_gone_.get();
}

// Frames until the client hangs up (or the destructor's shutdown); then `hangup` closes, which
// the supervision reads as the client gone. Input the command no longer takes is dropped.
void StdinFrames::Loop(int conn_fd, [[maybe_unused]] UniqueFd hangup) {
  for (;;) {
    auto frame = ReadFrame(conn_fd);
    if (!frame.ok() || frame->type != FrameType::kData) return;
    if (!write_.valid()) continue;
    if (frame->payload.empty() || !Write(conn_fd, frame->payload)) write_.reset();
  }
}

bool StdinFrames::Write(int conn_fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(write_.get(), bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return false;  // EPIPE: nobody reads it any more
    struct pollfd fds[2] = {{write_.get(), POLLOUT, 0}, {conn_fd, POLLRDHUP, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return false;
    if (fds[1].revents) return false;
    if (fds[0].revents & (POLLERR | POLLHUP)) return false;
  }
  return true;
}

}  // namespace agentbox
