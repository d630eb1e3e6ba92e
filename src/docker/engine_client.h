// EngineClient: a Docker Engine API client (no docker CLI involved), over a unix socket, plain
// TCP or TLS, as docker/docker_endpoint.h reads the environment. HTTP itself is libcurl's
// (httpclient/http_client.h): framing, chunked bodies both ways, TLS, timeouts.
//
// What the docker backend asks of the API is request/response, plus two streams: a chunked
// request body (image import sends a tar of unknown length) and a response read as it arrives
// (a pull's progress). It never attaches to a container nor upgrades a connection (the
// commands' stdio goes through the agent's socket, docs/architecture.md), so nothing here
// hijacks a connection.
//
// The API version is negotiated once, the way the docker CLI does: the daemon's own version,
// capped at the newest we know; Debian 12's docker.io speaks 1.41, current engines refuse
// anything below 1.44, and every field we send means the same in both.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "docker/docker_endpoint.h"
#include "httpclient/http_client.h"

namespace agentbox::docker {

inline constexpr std::string_view kOldestApiVersion = "1.41";
inline constexpr std::string_view kNewestApiVersion = "1.47";

using HttpResponse = httpclient::HttpResponse;

// Picks the version to speak with a daemon that reports `server_version` / `server_min`.
StatusOr<std::string> NegotiateApiVersion(std::string_view server_version,
                                          std::string_view server_min);

class EngineClient {
 public:
  // Reaches the endpoint from the environment and negotiates. kUnavailable with one clear line
  // when no daemon answers; kInvalidArgument for an endpoint or TLS setting it cannot use.
  static StatusOr<EngineClient> FromEnvironment();

  const std::string& api_version() const { return api_version_; }
  const Endpoint& endpoint() const { return endpoint_; }

  // One request on a fresh connection; `path` starts with "/" and gets the version prefix.
  // A JSON body when `json_body` is non-empty.
  StatusOr<HttpResponse> Call(std::string_view method, std::string_view path,
                              std::string_view json_body = {}, int timeout_ms = kDefaultTimeoutMs);
  // Any request: request.path gets the version prefix; errors say "docker: ...".
  StatusOr<HttpResponse> Send(httpclient::HttpRequest request);

  static constexpr int kDefaultTimeoutMs = 60000;

 private:
  EngineClient(Endpoint endpoint, std::string api_version)
      : endpoint_(std::move(endpoint)),
        target_(TargetOf(endpoint_)),
        api_version_(std::move(api_version)) {}

  Endpoint endpoint_;
  httpclient::HttpTarget target_;
  std::string api_version_;
};

// The daemon's error message from a non-2xx response ({"message": ...}), or the status code.
std::string ErrorMessage(const HttpResponse& response);

// Percent-encodes a query parameter value.
using httpclient::UrlEncode;

}  // namespace agentbox::docker
