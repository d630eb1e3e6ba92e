// A background process's output: the last `capacity` bytes of stdout and stderr, in the order
// they came, each byte with its offset since the process started (both streams counted
// together), so a reader can ask for what it has not seen yet.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "proto/output_capture.h"

namespace agentbox {

class OutputRing {
 public:
  explicit OutputRing(uint64_t capacity) : capacity_(capacity) {}

  // Keeps data, dropping the oldest bytes past the capacity.
  void Append(OutputStream stream, std::string_view data);

  uint64_t end() const { return end_; }      // bytes appended so far
  uint64_t start() const { return start_; }  // the oldest byte kept (= bytes dropped)

  // Calls `piece` with what is kept from `from` on (from start() when it is older), at most
  // `max_bytes` of it, stream by stream in order. Returns the offset after the last byte given.
  uint64_t Read(uint64_t from, uint64_t max_bytes,
                const std::function<void(OutputStream, std::string_view)>& piece) const;

 private:
  struct Chunk {
    uint64_t offset;
    OutputStream stream;
    std::string data;
  };
  // What a chunk costs beyond its bytes, charged to the capacity: a command writing one byte at
  // a time to alternating streams must not make a ring of a million chunks.
  static constexpr uint64_t kChunkOverhead = 64;
  static constexpr size_t kMaxChunk = 64 * 1024;

  void DropOldest();

  uint64_t capacity_;
  uint64_t used_ = 0;  // bytes kept plus the overhead of their chunks
  uint64_t start_ = 0;
  uint64_t end_ = 0;
  std::deque<Chunk> chunks_;
};

}  // namespace agentbox
