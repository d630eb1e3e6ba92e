#include "http/front_door.h"

#include <algorithm>

#include "base/ascii.h"
#include "http/listen_address.h"

namespace agentbox {
namespace {

// "http://localhost:6274/x" -> "localhost"; "" when there is no scheme or host.
std::string HostOfOrigin(std::string_view origin) {
  const size_t scheme = origin.find("://");
  if (scheme == std::string_view::npos) return "";
  std::string_view rest = origin.substr(scheme + 3);
  rest = rest.substr(0, rest.find('/'));
  return HostOfHostHeader(rest);
}

bool IsLoopbackName(const std::string& host) {
  return !host.empty() && IsLoopbackHost(AsciiLower(host));
}

// "application/json; charset=utf-8" -> "application/json".
std::string MediaType(std::string_view content_type) {
  return AsciiLower(TrimBlanks(content_type.substr(0, content_type.find(';'))));
}

std::optional<Refusal> CheckBody(const HttpRequest& request, const Route& route) {
  const bool has_body = request.chunked || request.content_length.value_or(0) > 0;
  if (!has_body) return std::nullopt;
  const std::string type = MediaType(request.Header("content-type"));
  switch (route.body) {
    case BodyKind::kNone:
      return Refusal{400, InvalidArgument(std::string(route.method) + " " +
                                          std::string(route.pattern) + " takes no request body")};
    case BodyKind::kJson:
      if (type == "application/json") return std::nullopt;
      return Refusal{415, InvalidArgument("the request body must be Content-Type: "
                                          "application/json, got \"" +
                                          request.Header("content-type") + "\"")};
    case BodyKind::kBytes:
      if (type.empty() || type == "application/octet-stream" || type == "application/x-tar") {
        return std::nullopt;
      }
      return Refusal{415, InvalidArgument("a file's body must be Content-Type: "
                                          "application/octet-stream, application/x-tar (or "
                                          "none), got \"" +
                                          request.Header("content-type") + "\"")};
  }
  return std::nullopt;
}

// RFC 9110 §7.2: after the host, nothing or ":" and a port's digits ("127.0.0.1:80@evil" is no
// Host, whatever its first part says).
bool IsPortSuffix(std::string_view after) {
  if (after.empty()) return true;
  if (!after.starts_with(':')) return false;
  after.remove_prefix(1);
  return std::all_of(after.begin(), after.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string HostOfHostHeader(std::string_view host) {
  host = TrimBlanks(host);
  if (host.starts_with('[')) {
    const size_t end = host.find(']');
    if (end == std::string_view::npos || !IsPortSuffix(host.substr(end + 1))) return "";
    return std::string(host.substr(1, end - 1));
  }
  const size_t colon = std::min(host.find(':'), host.size());
  if (!IsPortSuffix(host.substr(colon))) return "";
  return std::string(host.substr(0, colon));
}

Status CheckOrigin(std::string_view origin, bool tokens_required) {
  if (origin.empty() || tokens_required) return OkStatus();
  if (IsLoopbackName(HostOfOrigin(origin))) return OkStatus();
  return PermissionDenied("Origin \"" + std::string(origin) +
                          "\" refused: without --tokens only loopback origins may use this "
                          "server (a web page must not drive it)");
}

std::optional<Refusal> CheckFrontDoor(const HttpRequest& request, const Route& route,
                                      const FrontDoorPolicy& policy) {
  const std::string host = request.Header("host");
  // RFC 9112 §3.2: an HTTP/1.1 request without exactly one Host is answered 400.
  if (host.empty() && request.http11) {
    return Refusal{400, InvalidArgument("an HTTP/1.1 request needs a Host header")};
  }
  if (!policy.unix_socket && !policy.tokens_required && !IsLoopbackName(HostOfHostHeader(host))) {
    return Refusal{403, PermissionDenied("Host \"" + host +
                                         "\" refused: without --tokens this server answers "
                                         "only to a loopback Host (DNS rebinding)")};
  }
  Status origin = CheckOrigin(request.Header("origin"), policy.tokens_required);
  if (!origin.ok()) return Refusal{403, origin};
  return CheckBody(request, route);
}

}  // namespace agentbox
