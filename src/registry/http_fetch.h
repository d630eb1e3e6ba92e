// HttpFetch: one HTTP GET through libcurl, with the limits a registry client needs.
//
// Every transfer has a connect timeout and a stall timeout (less than one byte a second for
// `stall_seconds` aborts it), so a registry that accepts and never answers, or stops mid-blob,
// cannot hang agentbox. Redirects are followed (at most 5) to https only, or http too when the
// request allows it; curl drops an Authorization header on a redirect to another host. The body
// goes to a string (bounded by max_bytes) or an fd (hashed on the way, bounded by the size the
// descriptor promised).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "image/digest.h"

namespace agentbox::registry {

struct FetchOptions {
  int connect_seconds = 15;
  int stall_seconds = 30;
  bool allow_http_redirects = false;
};

struct FetchRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  uint64_t max_bytes = 0;            // a larger body is an error
  int out_fd = -1;                   // -1: the body is kept in FetchResponse::body
  image::Sha256* hash = nullptr;     // with out_fd: every byte written is hashed too
};

struct FetchResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; the last response's
  std::string body;
  uint64_t bytes = 0;
};

// kUnavailable for a transport failure (with curl's reason and the URL's host), kResourceExhausted
// for a body over max_bytes. Any HTTP status is a response, not an error.
StatusOr<FetchResponse> HttpGet(const FetchRequest& request, const FetchOptions& options);

// Call once per process before any HttpGet.
void InitHttp();

}  // namespace agentbox::registry
