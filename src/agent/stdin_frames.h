// An exec's stdin sent as frames (ExecRequest::stdin_frames: TCP, where no fd can ride along
// with the request): a pipe is the command's stdin, and a thread of the handler writes the
// client's kData frames into it while the command runs, an empty one closing it (EOF). As a
// terminal's input thread (agent/terminal.h), it also tells the supervision when the client hung
// up: the connection is the thread's to read from the request on.
#pragma once

#include <memory>

#include "agent/client_input.h"
#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

class StdinFrames {
 public:
  static StatusOr<std::unique_ptr<StdinFrames>> Open();
  StdinFrames(const StdinFrames&) = delete;
  StdinFrames& operator=(const StdinFrames&) = delete;

  // The pipe's read end: the command's stdin. Closed by Serve (the command holds its own).
  int command_stdin() const { return read_.get(); }

  // Once the command runs: serves the client's frames on conn_fd. The returned fd is the
  // supervision's client: it reads EOF once the client hung up or sent what is no kData frame.
  StatusOr<int> Serve(int conn_fd);

 private:
  StdinFrames(UniqueFd read, UniqueFd write) : read_(std::move(read)), write_(std::move(write)) {}
  void Loop(int conn_fd);

  UniqueFd read_, write_;
  ClientInputThread input_;  // last: stopped before the pipe closes
};

}  // namespace agentbox
