// Status and StatusOr<T>: the one error style of agentbox.
//
// Every fallible function returns Status or StatusOr<T>. A syscall wrapper attaches errno and the
// context (what it tried, on which path). Front ends map a Status exactly once: to an exit code
// (CLI), an HTTP status (serve) or an MCP error, see StatusCode below.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace agentbox {

enum class StatusCode {
  kOk,
  kInvalidArgument,     // bad flag, malformed policy or body: CLI 125, HTTP 400
  kNotFound,            // unknown sandbox, image or path: CLI 125, HTTP 404
  kAlreadyExists,       // duplicate sandbox name: CLI 125, HTTP 409
  kFailedPrecondition,  // not in a state that allows it (a busy sandbox): CLI 125, HTTP 409
  kPermissionDenied,    // path escapes /workspace, tenant mismatch: CLI 125, HTTP 403
  kResourceExhausted,   // quota, body or file too large: CLI 125, HTTP 413/429
  kUnavailable,         // the host cannot give the promised isolation: CLI 125, HTTP 503
  kInternal,            // a bug or an unexpected syscall failure: CLI 125, HTTP 500
};

const char* StatusCodeName(StatusCode code);
// The code StatusCodeName gives `name`; kInternal for a name it never gives.
StatusCode StatusCodeFromName(std::string_view name);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "context: message"; keeps the code.
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status PermissionDenied(std::string m) {
  return {StatusCode::kPermissionDenied, std::move(m)};
}
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// An errno-carrying error: "what: strerror(err)". Code is chosen from errno
// (ENOENT -> kNotFound, EPERM/EACCES -> kPermissionDenied, a resource of the host running out
// -- EMFILE, ENFILE, ENOMEM, ENOSPC, EDQUOT, EAGAIN, ENOBUFS -- -> kUnavailable, else kInternal).
Status ErrnoStatus(const std::string& what, int err);
// Same, with the errno of the failed call just made.
Status ErrnoStatus(const std::string& what);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : value_(std::move(status)) {}  // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? OkStatus() : std::get<Status>(value_); }
  T& value() & { return std::get<T>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> value_;
};

}  // namespace agentbox

// Early return on error, the only macros we keep.
#define AB_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::agentbox::Status ab_status_ = (expr);  \
    if (!ab_status_.ok()) return ab_status_; \
  } while (0)

#define AB_CONCAT_INNER(a, b) a##b
#define AB_CONCAT(a, b) AB_CONCAT_INNER(a, b)
#define AB_ASSIGN_OR_RETURN(lhs, expr) \
  AB_ASSIGN_OR_RETURN_IMPL(AB_CONCAT(ab_or_, __LINE__), lhs, expr)
#define AB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
