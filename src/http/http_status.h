// The one mapping from a Status to an HTTP status and error body (see base/status.h).
#pragma once

#include <string>

#include "base/status.h"

namespace agentbox {

// A tenant went over its quota: kResourceExhausted that answers 429, not 413.
Status QuotaExceeded(const std::string& message);

// kInvalidArgument 400, kNotFound 404, kAlreadyExists and kFailedPrecondition 409,
// kPermissionDenied 403,
// kResourceExhausted 413 (429 when made by QuotaExceeded), kUnavailable 503, kInternal 500.
int HttpStatusFor(const Status& status);

// {"error": message, "code": "not_found"}: the body of every error response.
std::string ErrorBody(const Status& status);

}  // namespace agentbox
