// The answer side of one request of `agentbox serve`, on the worker thread that runs its handler:
// writes the response (Content-Length or chunked) to the client's socket, and tells when the
// client hung up. The event loop (client_connection.h) reads requests; a worker writes answers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "http/http_message.h"
#include "sys/unique_fd.h"

namespace agentbox {

class HttpConnection {
 public:
  // `fd` stays the caller's (the event loop's connection); it may be non-blocking.
  explicit HttpConnection(int fd) : fd_(fd) {}

  // False when the client is gone (the write failed, or made no progress for 30 s).
  bool Write(std::string_view data);
  bool SendResponse(int status, const HeaderList& headers, std::string_view body, bool keep_alive);
  bool BeginChunked(int status, const HeaderList& headers, bool keep_alive);
  bool WriteChunk(std::string_view data) { return data.empty() || Write(ChunkFrame(data)); }
  bool EndChunked() { return Write(kChunkedEnd); }

  int fd() const { return fd_; }
  bool broken() const { return broken_; }

 private:
  int fd_;
  bool broken_ = false;
};

// Stops a long request's work when its client hangs up or the server aborts in-flight work: a
// thread polls the client socket for POLLRDHUP / POLLHUP (a non-streamed exec writes nothing for
// minutes, so a failed write cannot be the only signal) and calls on_hangup at most once.
// With on_quiet, that thread also calls it every quiet_ms until then (a stream's keep-alive).
class HangupWatch {
 public:
  HangupWatch(int client_fd, int abort_fd, std::function<void()> on_hangup,
              std::function<void()> on_quiet = nullptr, int quiet_ms = -1);
  ~HangupWatch();  // stops and joins the thread; on_hangup is not called after it returns
  // False when the server is out of fds or threads: nothing watches, so run nothing.
  bool ok() const { return thread_.joinable(); }
  HangupWatch(const HangupWatch&) = delete;
  HangupWatch& operator=(const HangupWatch&) = delete;

 private:
  UniqueFd done_fd_;
  std::thread thread_;
};

}  // namespace agentbox
