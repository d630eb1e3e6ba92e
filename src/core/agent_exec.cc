#include "core/agent_exec.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <vector>

#include "core/agent_client.h"
#include "proto/agent_protocol.h"

namespace agentbox {

void ExecCancellation::Cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  cancelled_ = true;
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

bool ExecCancellation::cancelled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cancelled_;
}

void ExecCancellation::Attach(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  fd_ = fd;
  if (cancelled_) ::shutdown(fd_, SHUT_RDWR);
}

void ExecCancellation::Detach() {
  std::lock_guard<std::mutex> lock(mutex_);
  fd_ = -1;
}

ExecCancellation::Scope::Scope(ExecCancellation* cancellation, int fd)
    : cancellation_(cancellation) {
  if (cancellation_) cancellation_->Attach(fd);
}

ExecCancellation::Scope::~Scope() {
  if (cancellation_) cancellation_->Detach();
}

namespace {

// An exec's stdin as frames (TCP: no fd rides along with the request), read from the caller's
// stdin fd as a terminal's input is: the same path to the agent.
class StdinAsInput : public TerminalInput {
 public:
  explicit StdinAsInput(int fd) : fd_(fd) {}
  int fd() const override { return fd_; }
  std::vector<TerminalEvent> Read() override {
    std::string bytes(64 * 1024, '\0');
    const ssize_t n = ::read(fd_, bytes.data(), bytes.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return {};
    if (n <= 0) {
      fd_ = -1;  // its end (or an error, which ends it as well): the command sees EOF
      return {{TerminalEvent::Kind::kEndOfInput, {}, {}}};
    }
    bytes.resize(static_cast<size_t>(n));
    return {{TerminalEvent::Kind::kInput, std::move(bytes), {}}};
  }

 private:
  int fd_;
};

// What the client sends while the command runs: a terminal's events or stdin, as frames,
// written without ever blocking. The agent's output is read meanwhile: a command that writes
// much while it reads much would otherwise stall both sides.
class Uplink {
 public:
  Uplink(int conn, TerminalInput* input, ExecCancellation& hangup)
      : conn_(conn), input_(input), hangup_(hangup) {}

  // Waits until the agent's connection is readable, sending the input meanwhile.
  void AwaitAgent() {
    while (!pending_.empty() || (input_ != nullptr && input_->fd() >= 0)) {
      const bool reading = pending_.empty() && input_ != nullptr && input_->fd() >= 0;
      struct pollfd fds[2] = {{conn_, static_cast<short>(POLLIN | (reading ? 0 : POLLOUT)), 0},
                              {reading ? input_->fd() : -1, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) return;
      if (fds[0].revents & POLLOUT) Flush();
      if (fds[1].revents) Take();
    }
  }

 private:
  void Flush() {
    const ssize_t n = ::send(conn_, pending_.data(), pending_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) pending_.erase(0, static_cast<size_t>(n));
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) Stop();
  }

  // The agent cannot take more (it ended the exec, or died): input stops, and the frames it
  // sent, its result included, are still read.
  void Stop() {
    pending_.clear();
    input_ = nullptr;
  }

  void Take() {
    for (const TerminalEvent& event : input_->Read()) {
      switch (event.kind) {
        case TerminalEvent::Kind::kInput:
          for (size_t off = 0; off < event.bytes.size(); off += kMaxFramePayload) {
            AppendFrame(FrameType::kData,
                        std::string_view(event.bytes).substr(off, kMaxFramePayload), &pending_);
          }
          break;
        case TerminalEvent::Kind::kResize:
          AppendFrame(FrameType::kResize, WindowSizeToWire(event.size), &pending_);
          break;
        case TerminalEvent::Kind::kEndOfInput:
          AppendFrame(FrameType::kData, "", &pending_);
          break;
        case TerminalEvent::Kind::kHangUp:
          hangup_.Cancel();
          return Stop();
      }
    }
  }

  int conn_;
  TerminalInput* input_;  // null once it has nothing more to send
  ExecCancellation& hangup_;
  std::string pending_;  // frames not sent yet
};

}  // namespace

StatusOr<ExecResult> AgentExec(const AgentEndpoint& agent, const ExecRequest& request,
                               OutputCapture& output, int stdin_fd, ExecCancellation* cancellation,
                               TerminalInput* terminal) {
  AB_ASSIGN_OR_RETURN(UniqueFd conn, ConnectAgent(agent));
  // A terminal's client hanging up cancels the exec as another thread's Cancel() would.
  ExecCancellation own;
  if (cancellation == nullptr) cancellation = &own;
  ExecCancellation::Scope scope(cancellation, conn.get());
  if (!request.tty) terminal = nullptr;
  ExecRequest sent = request;
  std::optional<StdinAsInput> stdin_input;
  if (request.pass_stdin && IsTcpEndpoint(agent)) {
    sent.stdin_frames = stdin_fd >= 0;
    sent.pass_stdin = stdin_fd >= 0;  // none: /dev/null, as on a unix socket
    if (stdin_fd >= 0) terminal = &stdin_input.emplace(stdin_fd);
  }
  AB_RETURN_IF_ERROR(WriteFrame(conn.get(), FrameType::kRequest, ExecRequestToWire(sent),
                                sent.pass_stdin && !sent.stdin_frames ? stdin_fd : -1));
  Uplink uplink(conn.get(), terminal, *cancellation);
  for (;;) {
    uplink.AwaitAgent();
    auto frame = ReadFrame(conn.get());
    if (!frame.ok()) {
      if (cancellation->cancelled()) {
        return Unavailable("the command was cancelled; its process tree was killed");
      }
      return Unavailable("lost the connection to the sandbox's agent: " + frame.status().message());
    }
    switch (frame->type) {
      case FrameType::kStdout:
        output.Append(OutputStream::kStdout, frame->payload);
        break;
      case FrameType::kStderr:
        output.Append(OutputStream::kStderr, frame->payload);
        break;
      case FrameType::kResponse: {
        AB_RETURN_IF_ERROR(ResponseStatus(frame->payload));
        return ExecResultFromWire(frame->payload);
      }
      default:
        return Internal("unexpected frame from the agent");
    }
  }
}

}  // namespace agentbox
