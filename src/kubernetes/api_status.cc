#include "kubernetes/api_status.h"

#include <nlohmann/json.hpp>

namespace agentbox::kubernetes {
namespace {

StatusCode CodeFor(int http_status, const std::string& reason) {
  switch (http_status) {
    case 404:
      return StatusCode::kNotFound;
    case 409:
      return reason == "AlreadyExists" ? StatusCode::kAlreadyExists
                                       : StatusCode::kFailedPrecondition;
    case 401:
    case 403:
      return StatusCode::kPermissionDenied;
    case 400:
    case 422:
      return StatusCode::kInvalidArgument;
    case 410:
      return StatusCode::kFailedPrecondition;
    case 429:
      return StatusCode::kResourceExhausted;
    default:
      return StatusCode::kUnavailable;
  }
}

// The first line of a body that is no Status (a proxy's error page), cut short.
std::string FirstLine(std::string_view body) {
  std::string line(body.substr(0, body.find('\n')));
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

}  // namespace

Status ApiError(int http_status, std::string_view body, const std::string& what) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  std::string message, reason;
  if (j.is_object() && j.value("kind", "") == "Status") {
    message = j.value("message", "");
    reason = j.value("reason", "");
  } else {
    message = FirstLine(body);
  }
  std::string text = "kubernetes API: " + what + ": " + (message.empty() ? "failed" : message) +
                     " (" + std::to_string(http_status) + (reason.empty() ? "" : " " + reason) +
                     ")";
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return Status(CodeFor(http_status, reason), text);
}

}  // namespace agentbox::kubernetes
