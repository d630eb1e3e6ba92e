#include "proto/agent_protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "sys/fd_passing.h"
#include "sys/send_all.h"

namespace agentbox {
namespace {

Status WriteAll(int fd, const char* data, size_t size) {
  return sys::SendAll(fd, data, size, "agent connection write");
}

Status SendWithFd(int fd, const char* data, size_t size, int pass_fd) {
  if (sys::SendWithFd(fd, data, 1, pass_fd) != 1) return ErrnoStatus("agent connection sendmsg");
  return WriteAll(fd, data + 1, size - 1);
}

// Reads exactly size bytes; the first read may carry an fd.
Status ReadAll(int fd, char* data, size_t size, int* received_fd, bool* eof_at_start) {
  size_t got = 0;
  while (got < size) {
    ssize_t n;
    if (got == 0 && received_fd) {
      n = sys::ReceiveWithFd(fd, data, size, received_fd);
    } else {
      do n = ::recv(fd, data + got, size - got, 0);
      while (n < 0 && errno == EINTR);
    }
    if (n < 0) return ErrnoStatus("agent connection read");
    if (n == 0) {
      if (got == 0 && eof_at_start) *eof_at_start = true;
      return InvalidArgument("agent connection closed mid-frame");
    }
    got += static_cast<size_t>(n);
  }
  return OkStatus();
}

}  // namespace

void AppendFrame(FrameType type, std::string_view payload, std::string* out) {
  char header[5];
  header[0] = static_cast<char>(type);
  auto len = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) header[1 + i] = static_cast<char>((len >> (8 * i)) & 0xff);
  out->append(header, sizeof(header));
  out->append(payload);
}

Status WriteFrame(int fd, FrameType type, std::string_view payload, int pass_fd) {
  if (payload.size() > kMaxFramePayload) return InvalidArgument("frame too large");
  std::string frame;
  frame.reserve(5 + payload.size());
  AppendFrame(type, payload, &frame);
  if (pass_fd >= 0) return SendWithFd(fd, frame.data(), frame.size(), pass_fd);
  return WriteAll(fd, frame.data(), frame.size());
}

StatusOr<Frame> ReadFrame(int fd, int* received_fd) {
  if (received_fd) *received_fd = -1;
  unsigned char header[5];
  bool eof = false;
  Status st = ReadAll(fd, reinterpret_cast<char*>(header), 5, received_fd, &eof);
  if (eof) return NotFound("agent connection closed");
  AB_RETURN_IF_ERROR(st);
  uint32_t len = 0;
  for (int i = 0; i < 4; ++i) len |= static_cast<uint32_t>(header[1 + i]) << (8 * i);
  if (len > kMaxFramePayload) return InvalidArgument("frame too large");
  Frame frame{static_cast<FrameType>(header[0]), std::string(len, '\0')};
  switch (frame.type) {
    case FrameType::kRequest:
    case FrameType::kResponse:
    case FrameType::kStdout:
    case FrameType::kStderr:
    case FrameType::kData:
    case FrameType::kResize:
      break;
    default:
      return InvalidArgument("unknown frame type");
  }
  AB_RETURN_IF_ERROR(ReadAll(fd, frame.payload.data(), len, nullptr, nullptr));
  // Requests and responses are JSON, parsed by whoever reads the frame: on either side, the
  // peer may be hostile (a box's agent, or a process posing as the host), so the nesting and
  // number limits are checked here, once for every parser of the protocol.
  if (frame.type == FrameType::kRequest || frame.type == FrameType::kResponse) {
    AB_RETURN_IF_ERROR(CheckJsonLimits(frame.payload).WithContext("agent frame"));
  }
  return frame;
}

Status ResponseStatus(const std::string& response_json) {
  auto j = nlohmann::json::parse(response_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Internal("malformed response from the agent");
  if (j.value("ok", false)) return OkStatus();
  return Status(StatusCodeFromName(j.value("code", "internal")),
                j.value("error", std::string("the agent reported an unknown error")));
}

}  // namespace agentbox
