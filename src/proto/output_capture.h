// OutputCapture: applies --output-limit to a command's stdout and stderr.
//
// Bytes up to the limit are either kept (for --json) or forwarded to a host fd as they arrive;
// everything past the limit is counted and dropped, so agentbox's memory stays bounded however
// much a command prints (a 1 GB flood costs at most limit bytes per stream).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "base/sha256.h"

namespace agentbox {

enum class OutputStream { kStdout = 0, kStderr = 1 };

class OutputCapture {
 public:
  // Receives the kept bytes as they arrive (the agent frames them onto its connection).
  using Sink = std::function<void(OutputStream, std::string_view)>;

  // forward_fds: when true, kept bytes are written to fd 1 / fd 2 of this process instead of
  // being stored (plain `agentbox run`); when false they are stored for the JSON result.
  OutputCapture(uint64_t limit_per_stream, bool forward_fds)
      : limit_(limit_per_stream), forward_(forward_fds) {}
  // Kept bytes go to sink; nothing is stored.
  OutputCapture(uint64_t limit_per_stream, Sink sink)
      : limit_(limit_per_stream), forward_(false), sink_(std::move(sink)) {}

  void Append(OutputStream stream, std::string_view data);

  bool truncated(OutputStream s) const { return streams_[Index(s)].dropped > 0; }
  const std::string& kept(OutputStream s) const { return streams_[Index(s)].kept; }
  uint64_t dropped_bytes(OutputStream s) const { return streams_[Index(s)].dropped; }
  // Forwarding: the last kForwardedTailBytes of stderr, which agentbox reads for its own notes
  // (a failed name lookup without egress, proto/exec_result.h NetworkNotes).
  const std::string& forwarded_stderr_tail() const { return stderr_tail_; }
  // From now on, hash the bytes accepted on each stream (kept, forwarded or sunk; what is past
  // the limit is not hashed): the session log's output digests. Off by default (the agent's
  // captures never pay for it).
  void EnableDigests() { digests_ = true; }
  // "sha256:..." of what was hashed on a stream.
  std::string digest(OutputStream s) const {
    Sha256 copy = streams_[Index(s)].hash;
    return copy.Digest();
  }
  static constexpr size_t kForwardedTailBytes = 8 * 1024;

 private:
  struct StreamState {
    std::string kept;
    uint64_t seen = 0;     // bytes accepted so far (kept or forwarded)
    uint64_t dropped = 0;  // bytes past the limit
    Sha256 hash;           // of the bytes accepted
  };
  static int Index(OutputStream s) { return static_cast<int>(s); }

  uint64_t limit_;
  bool forward_;
  Sink sink_;
  bool digests_ = false;
  StreamState streams_[2];
  std::string stderr_tail_;
};

}  // namespace agentbox
