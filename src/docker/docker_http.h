// The HTTP/1.1 that the Docker Engine API speaks, client side: build a request, parse a
// response. Pure (no sockets), so every framing case is unit-tested.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox::docker {

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;                            // de-chunked
};

// "METHOD PATH HTTP/1.1" with Host, Connection: close, and Content-Type/Length when a body is
// given (content_type empty: no body).
std::string BuildHttpRequest(std::string_view method, std::string_view path,
                             std::string_view content_type, std::string_view body);

// Parses a whole response read until the server closed the connection. Handles Content-Length,
// chunked transfer coding and bodies delimited by the close.
StatusOr<HttpResponse> ParseHttpResponse(std::string_view raw);

// Percent-encodes a query parameter value.
std::string UrlEncode(std::string_view value);

}  // namespace agentbox::docker
