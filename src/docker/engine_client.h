// EngineClient: a Docker Engine API client over a unix socket or TCP (no docker CLI involved).
//
// The endpoint comes from DOCKER_HOST (unix:///path or tcp://IP:PORT, IP may be localhost), else
// unix:///var/run/docker.sock. The API version is negotiated once, the way the docker CLI does:
// the daemon's own version, capped at the newest we know; Debian 12's docker.io speaks 1.41,
// current engines refuse anything below 1.44, and every field we send means the same in both.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "docker/docker_http.h"
#include "sys/unique_fd.h"

namespace agentbox::docker {

inline constexpr std::string_view kOldestApiVersion = "1.41";
inline constexpr std::string_view kNewestApiVersion = "1.47";

struct Endpoint {
  enum class Kind { kUnix, kTcp } kind = Kind::kUnix;
  std::string path;  // unix
  std::string host;  // tcp
  std::string port;  // tcp
  std::string display;
};

// Parses a DOCKER_HOST value; empty means the default socket.
StatusOr<Endpoint> ParseEndpoint(std::string_view docker_host);

// Picks the version to speak with a daemon that reports `server_version` / `server_min`.
StatusOr<std::string> NegotiateApiVersion(std::string_view server_version,
                                          std::string_view server_min);

class EngineClient {
 public:
  // Connects to the endpoint from the environment and negotiates. kUnavailable with one clear
  // line when no daemon answers.
  static StatusOr<EngineClient> FromEnvironment();

  const std::string& api_version() const { return api_version_; }
  const Endpoint& endpoint() const { return endpoint_; }

  // One request on a fresh connection; `path` starts with "/" and gets the version prefix.
  // A JSON body when `json_body` is non-empty.
  StatusOr<HttpResponse> Call(std::string_view method, std::string_view path,
                              std::string_view json_body = {}, int timeout_ms = kDefaultTimeoutMs);
  // Same with an arbitrary body and content type (image import sends a tar).
  StatusOr<HttpResponse> CallWithBody(std::string_view method, std::string_view path,
                                      std::string_view content_type, std::string_view body,
                                      int timeout_ms);

  static constexpr int kDefaultTimeoutMs = 60000;

 private:
  EngineClient(Endpoint endpoint, std::string api_version)
      : endpoint_(std::move(endpoint)), api_version_(std::move(api_version)) {}
  static StatusOr<HttpResponse> RoundTrip(const Endpoint& endpoint, const std::string& request,
                                          int timeout_ms);

  Endpoint endpoint_;
  std::string api_version_;
};

// The daemon's error message from a non-2xx response ({"message": ...}), or the status code.
std::string ErrorMessage(const HttpResponse& response);

}  // namespace agentbox::docker
