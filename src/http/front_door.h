// The checks every request of `agentbox serve` passes before anything else looks at it: who may
// reach the server through a web browser, and what a request body may be. Pure, unit-tested.
//
// Browsers are the threat here (docs/security.md, "The server"): a web page open in the user's
// browser can send requests to a loopback server, and an HTML form or a fetch() with a
// "simple" content type (text/plain, form-urlencoded, multipart) is sent without a CORS
// preflight. So:
//   - Host: on a TCP listener without tokens (loopback only), the Host header must name a
//     loopback host. A page whose domain was re-pointed at 127.0.0.1 (DNS rebinding) sends its
//     own domain there, and its requests count as same-origin in the browser.
//   - Origin: without tokens, a browser's Origin must be a loopback origin, on every route. With
//     tokens any origin passes: such a page cannot know a token. No Origin (not a browser) passes.
//   - Content-Type: a body must be application/json on a JSON route, application/octet-stream
//     (or none: `curl -T` sends none) on the file route, and routes without a body refuse one.
//     A browser cannot send application/json or a PUT cross-origin without a preflight, which
//     this server never grants (it sends no CORS headers).
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"
#include "http/http_message.h"
#include "http/routes.h"

namespace agentbox {

struct FrontDoorPolicy {
  bool tokens_required = false;  // a tokens file is given
  bool unix_socket = true;       // the listener: a unix socket, or (false) a TCP address
};

struct Refusal {
  int http_status;  // 400, 403 or 415
  Status why;
};

// What the request may not do, or nullopt when it passes. Looks at the head only (the body is
// not read yet): Host, Origin, and the body's presence and Content-Type for `route`.
std::optional<Refusal> CheckFrontDoor(const HttpRequest& request, const Route& route,
                                      const FrontDoorPolicy& policy);

// The Origin rule alone (absent passes; without tokens, loopback origins only): kPermissionDenied.
Status CheckOrigin(std::string_view origin, bool tokens_required);

// The host of a Host header ("localhost:8080" -> "localhost", "[::1]:80" -> "::1"), or "" when
// it is malformed.
std::string HostOfHostHeader(std::string_view host);

}  // namespace agentbox
