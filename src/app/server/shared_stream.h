// A chunked response written from two threads: the handler's (the events) and a HangupWatch's
// (keep-alive comments while the handler is blocked in a quiet command). Writes never
// interleave; a keep-alive is skipped while an event is being written (the stream is not
// quiet then).
#pragma once

#include <mutex>
#include <string_view>

#include "app/server/server_context.h"

namespace agentbox {

class SharedStream {
 public:
  explicit SharedStream(Exchange& ex) : ex_(ex) {}

  // False when the client is gone; Send, KeepAlive and End then write nothing.
  bool Begin(int code, std::string_view content_type, HeaderList headers = {}) {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = ex_.BeginStream(code, content_type, std::move(headers));
    return open_;
  }
  // A failed write means the client left; its HangupWatch cancels the work.
  void Send(std::string_view chunk) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (open_) ex_.StreamChunk(chunk);
  }
  void KeepAlive(std::string_view comment) {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (lock && open_) ex_.StreamChunk(comment);
  }
  void End() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (open_) ex_.EndStream();
    open_ = false;
  }

 private:
  Exchange& ex_;
  std::mutex mutex_;
  bool open_ = false;
};

}  // namespace agentbox
