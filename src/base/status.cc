#include "base/status.h"

#include <cerrno>
#include <cstring>

namespace agentbox {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kAlreadyExists:
      return "already_exists";
    case StatusCode::kFailedPrecondition:
      return "failed_precondition";
    case StatusCode::kPermissionDenied:
      return "permission_denied";
    case StatusCode::kResourceExhausted:
      return "resource_exhausted";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kInternal:
      return "internal";
  }
  return "unknown";
}

StatusCode StatusCodeFromName(std::string_view name) {
  for (StatusCode code :
       {StatusCode::kOk, StatusCode::kInvalidArgument, StatusCode::kNotFound,
        StatusCode::kAlreadyExists, StatusCode::kFailedPrecondition, StatusCode::kPermissionDenied,
        StatusCode::kResourceExhausted, StatusCode::kUnavailable, StatusCode::kInternal}) {
    if (name == StatusCodeName(code)) return code;
  }
  return StatusCode::kInternal;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

Status ErrnoStatus(const std::string& what, int err) {
  StatusCode code = StatusCode::kInternal;
  if (err == ENOENT) code = StatusCode::kNotFound;
  if (err == EPERM || err == EACCES) code = StatusCode::kPermissionDenied;
  // Out of fds, memory, disk or threads is the host's state, not a bug: HTTP 503, not 500.
  for (int exhausted : {EMFILE, ENFILE, ENOMEM, ENOSPC, EDQUOT, EAGAIN, ENOBUFS}) {
    if (err == exhausted) code = StatusCode::kUnavailable;
  }
  return Status(code, what + ": " + std::strerror(err));
}

Status ErrnoStatus(const std::string& what) { return ErrnoStatus(what, errno); }

}  // namespace agentbox
