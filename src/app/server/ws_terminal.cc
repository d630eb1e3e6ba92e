#include "app/server/ws_terminal.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "http/routes.h"
#include "http/terminal_messages.h"

namespace agentbox {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = 64 * 1024;
// How long Finish waits for the client to answer the server's close.
constexpr std::chrono::milliseconds kCloseWait{2000};

int MillisecondsUntil(Clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

}  // namespace

WsTerminal::WsTerminal(HttpConnection& conn, std::string already_read)
    : conn_(conn),
      epoll_(::epoll_create1(EPOLL_CLOEXEC)),
      pending_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      parser_(kMaxJsonBody),
      unread_(std::move(already_read)) {
  for (int watched : {conn_.fd(), pending_.get()}) {
    struct epoll_event event = {};
    event.events = EPOLLIN;
    event.data.fd = watched;
    if (!epoll_ || !pending_ || ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, watched, &event) != 0) {
      epoll_.reset();
      return;
    }
  }
}

int WsTerminal::fd() const { return closed_ ? -1 : epoll_.get(); }

bool WsTerminal::Fill() {
  std::vector<ws::Message> out;
  Status parsed;
  if (!unread_.empty()) {
    parsed = parser_.Feed(std::exchange(unread_, {}), &out);
  } else {
    std::string buf(kReadChunk, '\0');
    ssize_t n;
    do n = ::recv(conn_.fd(), buf.data(), buf.size(), 0);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) return false;
    parsed = parser_.Feed(std::string_view(buf.data(), static_cast<size_t>(n)), &out);
  }
  for (ws::Message& m : out) messages_.push_back(std::move(m));
  // A frame the RFC forbids: the close says why; no text message, the protocol is broken.
  if (!parsed.ok()) Fail(parser_.close_code(), parsed, /*tell=*/false);
  return true;
}

bool WsTerminal::HandleControl(const ws::Message& message) {
  switch (message.opcode) {
    case ws::Opcode::kPing:
      if (!closed_) closed_ = !conn_.Write(ws::EncodeFrame(ws::Opcode::kPong, message.payload));
      return false;
    case ws::Opcode::kPong:
      return false;
    case ws::Opcode::kClose: {
      // §5.5.1: answered with a close, echoing its code (the parser checked it).
      uint16_t code = ws::kCloseNormal;
      if (message.payload.size() >= 2) {
        code = static_cast<uint16_t>(static_cast<uint8_t>(message.payload[0]) << 8 |
                                     static_cast<uint8_t>(message.payload[1]));
      }
      Close(code, "");
      return false;
    }
    default:
      return true;
  }
}

StatusOr<std::string> WsTerminal::ReadFirst(Clock::time_point deadline, int abort_fd) {
  for (;;) {
    while (!closed_ && !messages_.empty()) {
      ws::Message m = std::move(messages_.front());
      messages_.pop_front();
      if (!HandleControl(m)) continue;
      if (m.opcode != ws::Opcode::kText) {
        return InvalidArgument(
            "terminal: the first message must be text: the exec body (JSON) with rows and cols");
      }
      if (!messages_.empty()) {
        const uint64_t one = 1;  // keys read with it: Read takes them as soon as the exec runs
        (void)!::write(pending_.get(), &one, sizeof(one));
      }
      return std::move(m.payload);
    }
    if (closed_) return Unavailable("terminal: the client left before its first message");
    if (unread_.empty()) {  // else Fill takes what the event loop read
      const int wait = MillisecondsUntil(deadline);
      if (wait == 0) {
        return InvalidArgument(
            "terminal: no first message (the exec body) within the server's body_timeout");
      }
      struct pollfd fds[2] = {{conn_.fd(), POLLIN, 0}, {abort_fd, POLLIN, 0}};
      const int n = ::poll(fds, abort_fd >= 0 ? 2 : 1, wait);
      if (n < 0 && errno != EINTR) return Unavailable("terminal: poll failed");
      if (abort_fd >= 0 && (fds[1].revents & POLLIN)) {
        return Unavailable("the server is shutting down");
      }
      if (n <= 0) continue;
    }
    if (!Fill()) closed_ = true;
  }
}

std::vector<TerminalEvent> WsTerminal::Read() {
  std::vector<TerminalEvent> events;
  uint64_t count;
  (void)!::read(pending_.get(), &count, sizeof(count));  // all of messages_ is taken below
  const bool open = Fill();
  while (!closed_ && !messages_.empty()) {
    ws::Message m = std::move(messages_.front());
    messages_.pop_front();
    if (!HandleControl(m)) continue;
    auto event = ParseTerminalMessage(m);
    if (!event.ok()) {
      Fail(ws::kClosePolicyViolation, event.status(), /*tell=*/true);
      break;
    }
    events.push_back(std::move(*event));
  }
  if (!open) closed_ = true;  // gone without a close: nothing more can reach it
  if (closed_) events.push_back({TerminalEvent::Kind::kHangUp, "", {}});
  return events;
}

bool WsTerminal::SendOutput(std::string_view bytes) {
  if (closed_) return false;
  if (!conn_.Write(ws::EncodeFrame(ws::Opcode::kBinary, bytes))) closed_ = true;
  return !closed_;
}

void WsTerminal::Finish(std::string_view text, uint16_t code) {
  if (closed_) return;
  if (!conn_.Write(ws::EncodeFrame(ws::Opcode::kText, text))) {
    closed_ = true;
    return;
  }
  Close(code, "");
  // §7.1.1: the server closes the TCP connection once the client answered the close.
  const auto deadline = Clock::now() + kCloseWait;
  for (;;) {
    for (const ws::Message& m : messages_) {
      if (m.opcode == ws::Opcode::kClose) return;
    }
    messages_.clear();
    struct pollfd pfd = {conn_.fd(), POLLIN, 0};
    const int wait = MillisecondsUntil(deadline);
    const int n = wait > 0 ? ::poll(&pfd, 1, wait) : 0;
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || !Fill() || parser_.failed()) return;
  }
}

void WsTerminal::Fail(uint16_t code, const Status& why, bool tell) {
  if (closed_) return;
  if (tell && !conn_.Write(ws::EncodeFrame(ws::Opcode::kText, TerminalErrorMessage(why)))) {
    closed_ = true;
    return;
  }
  Close(code, why.message());
}

void WsTerminal::Close(uint16_t code, std::string_view reason) {
  if (closed_) return;
  (void)conn_.Write(ws::EncodeClose(code, reason));
  closed_ = true;
}

}  // namespace agentbox
