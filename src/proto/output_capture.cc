#include "proto/output_capture.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>

namespace agentbox {
namespace {

// Writes all of `data` to `fd`. Returns false when the fd is gone for good (EPIPE, EBADF, ...):
// the caller then stops writing there but keeps draining the command, because a command blocked
// on a full pipe would otherwise hang until its timeout. EAGAIN happens when our stdout is a
// non-blocking fd shared with another process (a terminal, a parent's pipe): wait, then retry.
bool WriteFully(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd pfd{fd, POLLOUT, 0};
      if (::poll(&pfd, 1, -1) < 0 && errno != EINTR) return false;
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace

void OutputCapture::Append(OutputStream stream, std::string_view data) {
  StreamState& state = streams_[Index(stream)];
  const uint64_t room = state.seen < limit_ ? limit_ - state.seen : 0;
  const size_t take = static_cast<size_t>(std::min<uint64_t>(room, data.size()));
  state.seen += take;
  state.dropped += data.size() - take;
  if (take == 0) return;
  if (digests_) state.hash.Update(data.substr(0, take));
  if (sink_) {
    sink_(stream, data.substr(0, take));
    return;
  }
  if (!forward_) {
    state.kept.append(data.substr(0, take));
    return;
  }
  // A failed write (our stdout closed) is ignored on purpose: we keep draining the command. At
  // most limit_ bytes are ever attempted, so retrying a dead fd per chunk stays cheap.
  const int fd = stream == OutputStream::kStdout ? STDOUT_FILENO : STDERR_FILENO;
  (void)WriteFully(fd, data.substr(0, take));
  if (stream == OutputStream::kStderr) {
    stderr_tail_.append(data.substr(0, take));
    if (stderr_tail_.size() > kForwardedTailBytes) {
      stderr_tail_.erase(0, stderr_tail_.size() - kForwardedTailBytes);
    }
  }
}

}  // namespace agentbox
