#include "agent/output_ring.h"

#include <algorithm>

namespace agentbox {

void OutputRing::Append(OutputStream stream, std::string_view data) {
  // Only the last `capacity` bytes of a flood can be kept: skip the rest before copying it.
  if (data.size() > capacity_) {
    uint64_t skipped = data.size() - capacity_;
    end_ += skipped;
    data.remove_prefix(skipped);
  }
  while (!data.empty()) {
    // A new chunk also after skipped bytes: a chunk's bytes are contiguous offsets.
    if (chunks_.empty() || chunks_.back().stream != stream ||
        chunks_.back().data.size() >= kMaxChunk ||
        chunks_.back().offset + chunks_.back().data.size() != end_) {
      chunks_.push_back({end_, stream, {}});
      used_ += kChunkOverhead;
    }
    Chunk& last = chunks_.back();
    size_t take = std::min(data.size(), kMaxChunk - last.data.size());
    last.data.append(data.substr(0, take));
    data.remove_prefix(take);
    end_ += take;
    used_ += take;
  }
  while (used_ > capacity_ && !chunks_.empty()) DropOldest();
  start_ = chunks_.empty() ? end_ : chunks_.front().offset;
}

void OutputRing::DropOldest() {
  Chunk& first = chunks_.front();
  uint64_t excess = used_ - capacity_;
  if (excess < first.data.size()) {
    // Cut the oldest bytes of the first chunk rather than all of it.
    first.data.erase(0, excess);
    first.offset += excess;
    used_ -= excess;
    return;
  }
  used_ -= first.data.size() + kChunkOverhead;
  chunks_.pop_front();
}

uint64_t OutputRing::Read(uint64_t from, uint64_t max_bytes,
                          const std::function<void(OutputStream, std::string_view)>& piece) const {
  uint64_t at = std::max(from, start_);
  for (const Chunk& chunk : chunks_) {
    if (max_bytes == 0) break;
    uint64_t chunk_end = chunk.offset + chunk.data.size();
    if (chunk_end <= at) continue;
    at = std::max(at, chunk.offset);  // past bytes skipped unkept
    uint64_t skip = at - chunk.offset;
    uint64_t take = std::min<uint64_t>(chunk.data.size() - skip, max_bytes);
    piece(chunk.stream, std::string_view(chunk.data).substr(skip, take));
    at += take;
    max_bytes -= take;
  }
  // Skipped bytes after the last chunk kept are past too.
  return max_bytes > 0 ? std::max(at, end_) : at;
}

}  // namespace agentbox
