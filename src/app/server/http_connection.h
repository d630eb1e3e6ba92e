// One client connection of `agentbox serve`: reads requests (head, then body within the route's
// limit), writes responses (Content-Length or chunked), and tells when the client hung up.
//
// Owned by the connection's own thread; only PeerHungUp() and fd() may be used from another.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "core/http/http_message.h"
#include "sys/unique_fd.h"

namespace agentbox {

class HttpConnection {
 public:
  // wake_fd turns readable when the server shuts down: an idle connection then closes.
  HttpConnection(UniqueFd fd, int wake_fd) : fd_(std::move(fd)), wake_fd_(wake_fd) {}

  // The next request's head. nullopt: the client closed, went idle too long, or the server is
  // shutting down between requests. An error Status: a malformed or oversized head (the caller
  // answers 400 / 431 and closes).
  StatusOr<std::optional<HttpRequest>> ReadHead();
  // Reads the body announced by the head into request->body; kResourceExhausted past max_body.
  // Sends "100 Continue" first when the client waits for it.
  Status ReadBody(HttpRequest* request, uint64_t max_body);

  // False when the client is gone (the write failed or timed out).
  bool Write(std::string_view data);
  bool SendResponse(int status, const HeaderList& headers, std::string_view body, bool keep_alive);
  bool BeginChunked(int status, const HeaderList& headers, bool keep_alive);
  bool WriteChunk(std::string_view data) { return data.empty() || Write(ChunkFrame(data)); }
  bool EndChunked() { return Write(kChunkedEnd); }

  int fd() const { return fd_.get(); }
  bool broken() const { return broken_; }

 private:
  // Waits for and appends more bytes; false on EOF, error, timeout, or (idle only) shutdown.
  bool Fill(bool idle);

  UniqueFd fd_;
  int wake_fd_;
  std::string in_;  // bytes read but not yet consumed (a pipelined next request may be here)
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
