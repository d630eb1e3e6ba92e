#include "core/agent_exec.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

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

// Sends what the terminal read. False once the agent cannot take more (it ended the exec, or
// died): input stops, and the frames it sent, its result included, are still read.
bool ForwardTerminal(int conn, TerminalInput& terminal, ExecCancellation& hangup) {
  for (const TerminalEvent& event : terminal.Read()) {
    Status sent = OkStatus();
    switch (event.kind) {
      case TerminalEvent::Kind::kInput:
        for (size_t off = 0; sent.ok() && off < event.bytes.size(); off += kMaxFramePayload) {
          sent = WriteFrame(conn, FrameType::kData,
                            std::string_view(event.bytes).substr(off, kMaxFramePayload));
        }
        break;
      case TerminalEvent::Kind::kResize:
        sent = WriteFrame(conn, FrameType::kResize, WindowSizeToWire(event.size));
        break;
      case TerminalEvent::Kind::kEndOfInput:
        sent = WriteFrame(conn, FrameType::kData, "");
        break;
      case TerminalEvent::Kind::kHangUp:
        hangup.Cancel();
        return false;
    }
    if (!sent.ok()) return false;
  }
  return true;
}

// Waits until the agent's connection is readable, forwarding the terminal's events meanwhile.
// *terminal becomes null once it has nothing more to send.
void AwaitAgent(int conn, TerminalInput** terminal, ExecCancellation& hangup) {
  while (*terminal != nullptr && (*terminal)->fd() >= 0) {
    struct pollfd fds[2] = {{conn, POLLIN, 0}, {(*terminal)->fd(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents) return;
    if (fds[1].revents && !ForwardTerminal(conn, **terminal, hangup)) *terminal = nullptr;
  }
}

}  // namespace

StatusOr<ExecResult> AgentExec(const std::string& socket_path, const ExecRequest& request,
                               OutputCapture& output, int stdin_fd, ExecCancellation* cancellation,
                               TerminalInput* terminal) {
  AB_ASSIGN_OR_RETURN(UniqueFd conn, ConnectAgent(socket_path));
  // A terminal's client hanging up cancels the exec as another thread's Cancel() would.
  ExecCancellation own;
  if (cancellation == nullptr) cancellation = &own;
  ExecCancellation::Scope scope(cancellation, conn.get());
  AB_RETURN_IF_ERROR(WriteFrame(conn.get(), FrameType::kRequest, ExecRequestToWire(request),
                                request.pass_stdin ? stdin_fd : -1));
  if (!request.tty) terminal = nullptr;
  for (;;) {
    AwaitAgent(conn.get(), &terminal, *cancellation);
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
