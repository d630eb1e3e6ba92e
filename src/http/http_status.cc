#include "http/http_status.h"

#include <nlohmann/json.hpp>

namespace agentbox {
namespace {

// The marker QuotaExceeded puts first: 413 and 429 share kResourceExhausted, and only the
// message tells a body that is too large from a tenant that has too much.
constexpr std::string_view kQuotaPrefix = "quota exceeded: ";

}  // namespace

Status QuotaExceeded(const std::string& message) {
  return ResourceExhausted(std::string(kQuotaPrefix) + message);
}

int HttpStatusFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kResourceExhausted:
      return status.message().starts_with(kQuotaPrefix) ? 429 : 413;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

std::string ErrorBody(const Status& status) {
  nlohmann::json j = {{"error", status.message()}, {"code", StatusCodeName(status.code())}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace agentbox
