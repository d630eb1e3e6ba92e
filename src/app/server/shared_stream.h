// A chunked response written from two threads: the handler's (the events) and a HangupWatch's
// (keep-alive comments while the handler is blocked in a quiet command). Writes never
// interleave; a keep-alive is skipped while an event is being written (the stream is not
// quiet then).
#pragma once

#include <functional>
#include <mutex>
#include <string_view>

#include "app/server/server_context.h"
#include "http/api_bodies.h"
#include "proto/output_capture.h"

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

// Output as "stdout"/"stderr" events of `format` on a SharedStream, each piece sent as it comes
// (a UTF-8 sequence split between two pieces is carried over to the next).
class OutputEvents {
 public:
  OutputEvents(SharedStream& stream, StreamFormat format) : stream_(stream), format_(format) {}

  // The 200 with the format's content type; false when the client is gone.
  bool Begin() {
    return stream_.Begin(
        200, format_ == StreamFormat::kSse ? "text/event-stream" : "application/x-ndjson");
  }
  void Append(OutputStream s, std::string_view data) {
    Emit(s, carry_[static_cast<int>(s)].Take(data));
  }
  // What the carries still hold, once the output has ended.
  void Flush() {
    Emit(OutputStream::kStdout, carry_[0].Flush());
    Emit(OutputStream::kStderr, carry_[1].Flush());
  }
  // The keep-alive a HangupWatch sends while the stream is quiet (none for NDJSON).
  std::function<void()> KeepAlive() {
    std::string_view comment = StreamKeepAlive(format_);
    if (comment.empty()) return nullptr;
    SharedStream* stream = &stream_;
    return [stream, comment] { stream->KeepAlive(comment); };
  }

 private:
  void Emit(OutputStream s, std::string_view text) {
    if (text.empty()) return;
    stream_.Send(StreamEvent(format_, s == OutputStream::kStdout ? "stdout" : "stderr", text));
  }

  SharedStream& stream_;
  StreamFormat format_;
  Utf8Carry carry_[2];
};

}  // namespace agentbox
