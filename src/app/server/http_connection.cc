#include "app/server/http_connection.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <cerrno>

namespace agentbox {
namespace {

// A client that stops reading our response is dropped after this long without progress.
constexpr int kStallTimeoutMs = 30000;

}  // namespace

bool HttpConnection::Write(std::string_view data) {
  while (!data.empty() && !broken_) {
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    struct pollfd pfd = {fd_, POLLOUT, 0};
    if (n < 0 && errno == EAGAIN && ::poll(&pfd, 1, kStallTimeoutMs) == 1 &&
        !(pfd.revents & (POLLERR | POLLHUP))) {
      continue;
    }
    broken_ = true;
  }
  return !broken_;
}

bool HttpConnection::SendResponse(int status, const HeaderList& headers, std::string_view body,
                                  bool keep_alive) {
  std::string out = ResponseHead(status, headers, body.size(), keep_alive);
  // One write for small answers: a separate head and body would cost a second packet (and,
  // with Nagle and delayed ACKs, 40 ms) per request.
  if (body.size() <= 64 * 1024) return Write(out.append(body));
  return Write(out) && Write(body);
}

bool HttpConnection::BeginChunked(int status, const HeaderList& headers, bool keep_alive) {
  return Write(ResponseHead(status, headers, std::nullopt, keep_alive));
}

HangupWatch::HangupWatch(int client_fd, int abort_fd, std::function<void()> on_hangup,
                         std::function<void()> on_quiet, int quiet_ms)
    : done_fd_(::eventfd(0, EFD_CLOEXEC)) {
  if (!done_fd_.valid()) return;  // out of fds: ok() says so, the caller answers 503
  int done = done_fd_.get();
  try {
    if (!on_quiet) quiet_ms = -1;
    thread_ = std::thread([client_fd, abort_fd, done, on_hangup = std::move(on_hangup),
                           on_quiet = std::move(on_quiet), quiet_ms] {
      // POLLIN is not asked for: a pipelined next request must not look like a hangup.
      struct pollfd fds[3] = {{client_fd, POLLRDHUP, 0}, {done, POLLIN, 0}, {abort_fd, POLLIN, 0}};
      for (;;) {
        int n = ::poll(fds, abort_fd >= 0 ? 3 : 2, quiet_ms);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) {
          on_quiet();
          continue;
        }
        if (n < 0 || (fds[1].revents & POLLIN)) return;
        if (fds[0].revents != 0 || (fds[2].revents & POLLIN)) {
          on_hangup();
          return;
        }
      }
    });
  } catch (const std::system_error&) {
    done_fd_.reset();  // out of threads: ok() says so
  }
}

HangupWatch::~HangupWatch() {
  if (!thread_.joinable()) return;
  uint64_t one = 1;
  if (::write(done_fd_.get(), &one, sizeof(one)) < 0) {
    // Cannot happen for an eventfd below its maximum; the join would then hang, so say so.
    std::abort();
  }
  thread_.join();
}

}  // namespace agentbox
