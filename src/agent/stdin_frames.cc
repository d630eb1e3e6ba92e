#include "agent/stdin_frames.h"

#include <fcntl.h>
#include <unistd.h>

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

StatusOr<int> StdinFrames::Serve(int conn_fd) {
  read_.reset();
  return input_.Start(conn_fd, [this](int conn) { Loop(conn); });
}

// Frames until the client hangs up (or the thread is stopped). Input the command no longer
// takes (it closed its stdin, or is gone) is dropped.
void StdinFrames::Loop(int conn_fd) {
  for (;;) {
    auto frame = ReadFrame(conn_fd);
    if (!frame.ok() || frame->type != FrameType::kData) return;
    if (!write_.valid()) continue;
    if (frame->payload.empty() || !WriteWhileClientStays(write_.get(), conn_fd, frame->payload)) {
      write_.reset();
    }
  }
}

}  // namespace agentbox
