#include "core/agent_exec.h"

#include <sys/socket.h>

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

StatusOr<ExecResult> AgentExec(const std::string& socket_path, const ExecRequest& request,
                               OutputCapture& output, int stdin_fd,
                               ExecCancellation* cancellation) {
  AB_ASSIGN_OR_RETURN(UniqueFd conn, ConnectAgent(socket_path));
  ExecCancellation::Scope scope(cancellation, conn.get());
  AB_RETURN_IF_ERROR(WriteFrame(conn.get(), FrameType::kRequest, ExecRequestToWire(request),
                                request.pass_stdin ? stdin_fd : -1));
  for (;;) {
    auto frame = ReadFrame(conn.get());
    if (!frame.ok()) {
      if (cancellation && cancellation->cancelled()) {
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
