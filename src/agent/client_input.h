// What a handler's input threads share (a terminal's keys, agent/terminal.h; an exec's stdin as
// frames, agent/stdin_frames.h): a thread that reads the client's frames while the command runs
// and whose end tells the supervision that the client is gone, and the write that waits for the
// command to take input only while the client stays.
#pragma once

#include <functional>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

class ClientInputThread {
 public:
  ClientInputThread() = default;
  // Stops the thread (shutting down conn's reading side wakes a blocked read or poll) and joins.
  ~ClientInputThread();
  ClientInputThread(const ClientInputThread&) = delete;
  ClientInputThread& operator=(const ClientInputThread&) = delete;

  // Runs loop(conn_fd) on a thread of its own. The returned fd is the supervision's client: it
  // reads EOF once loop returned (the client hung up, or sent what the loop does not take).
  StatusOr<int> Start(int conn_fd, std::function<void(int)> loop);

 private:
  UniqueFd client_gone_;
  int conn_fd_ = -1;
  std::thread thread_;
};

// Writes bytes to the non-blocking fd, waiting for room while the client on conn_fd stays.
// False once the fd takes no more (its reader is gone: EPIPE, EIO) or the client went.
bool WriteWhileClientStays(int fd, int conn_fd, std::string_view bytes);

}  // namespace agentbox
