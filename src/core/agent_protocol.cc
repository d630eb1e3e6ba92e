#include "core/agent_protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace agentbox {
namespace {

Status WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("agent connection write");
    data += n;
    size -= static_cast<size_t>(n);
  }
  return OkStatus();
}

Status SendWithFd(int fd, const char* data, size_t size, int pass_fd) {
  struct iovec iov = {const_cast<char*>(data), 1};
  char control[CMSG_SPACE(sizeof(int))] = {};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  struct cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &pass_fd, sizeof(int));
  ssize_t n;
  do n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n != 1) return ErrnoStatus("agent connection sendmsg");
  return WriteAll(fd, data + 1, size - 1);
}

// Reads exactly size bytes; the first read may carry an fd.
Status ReadAll(int fd, char* data, size_t size, int* received_fd, bool* eof_at_start) {
  size_t got = 0;
  while (got < size) {
    char control[CMSG_SPACE(sizeof(int))] = {};
    struct iovec iov = {data + got, size - got};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (got == 0 && received_fd) {
      msg.msg_control = control;
      msg.msg_controllen = sizeof(control);
    }
    ssize_t n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("agent connection read");
    if (n == 0) {
      if (got == 0 && eof_at_start) *eof_at_start = true;
      return InvalidArgument("agent connection closed mid-frame");
    }
    if (got == 0 && received_fd) {
      for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
          std::memcpy(received_fd, CMSG_DATA(c), sizeof(int));
        }
      }
    }
    got += static_cast<size_t>(n);
  }
  return OkStatus();
}

}  // namespace

Status WriteFrame(int fd, FrameType type, std::string_view payload, int pass_fd) {
  if (payload.size() > kMaxFramePayload) return InvalidArgument("frame too large");
  std::string frame(5 + payload.size(), '\0');
  frame[0] = static_cast<char>(type);
  auto len = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) frame[1 + i] = static_cast<char>((len >> (8 * i)) & 0xff);
  std::memcpy(frame.data() + 5, payload.data(), payload.size());
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
      break;
    default:
      return InvalidArgument("unknown frame type");
  }
  AB_RETURN_IF_ERROR(ReadAll(fd, frame.payload.data(), len, nullptr, nullptr));
  return frame;
}

StatusCode StatusCodeFromName(std::string_view name) {
  for (StatusCode c : {StatusCode::kOk, StatusCode::kInvalidArgument, StatusCode::kNotFound,
                       StatusCode::kAlreadyExists, StatusCode::kPermissionDenied,
                       StatusCode::kResourceExhausted, StatusCode::kUnavailable}) {
    if (name == StatusCodeName(c)) return c;
  }
  return StatusCode::kInternal;
}

}  // namespace agentbox
