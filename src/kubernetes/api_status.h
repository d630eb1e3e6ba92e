// ApiError(): a Kubernetes API server's failure answer (a metav1.Status body, or any body) as
// our Status, so it reaches the CLI's exit status, HTTP and MCP like every other error:
//   404 -> kNotFound; 409 AlreadyExists -> kAlreadyExists, other 409 (Conflict) ->
//   kFailedPrecondition; 401, 403 -> kPermissionDenied; 400, 422 -> kInvalidArgument;
//   410 (Expired, Gone) -> kFailedPrecondition; 429 -> kResourceExhausted; 5xx and the rest ->
//   kUnavailable.
// The message is one line: what was asked, the server's message, and the code and reason.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox::kubernetes {

// `what`: "GET /api/v1/namespaces/x/pods/y". `body`: the response body (a Status or not).
Status ApiError(int http_status, std::string_view body, const std::string& what);

}  // namespace agentbox::kubernetes
