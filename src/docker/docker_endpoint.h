// Where the Docker daemon is, read from the environment as the docker CLI reads it:
//   DOCKER_HOST        unix:///path or tcp://HOST:PORT (a name, an IPv4 or a [IPv6] address);
//                      unset: unix:///var/run/docker.sock, or tcp://localhost:2376 with TLS
//   DOCKER_TLS_VERIFY  non-empty: a tcp:// daemon is spoken to over TLS and its certificate
//                      checked against DOCKER_CERT_PATH/ca.pem; the client presents
//                      DOCKER_CERT_PATH/cert.pem and key.pem when they are there (both or neither)
//   DOCKER_CERT_PATH   the directory of those files; default ~/.docker
//   DOCKER_TLS         the CLI's "TLS without checking the daemon": refused here (one line says
//                      to set DOCKER_TLS_VERIFY), since whoever answers on that port would get
//                      to start containers with agentbox's bind mounts.
// TLS settings are ignored for a unix socket, as the CLI ignores them.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "httpclient/http_client.h"

namespace agentbox::docker {

struct Endpoint {
  enum class Kind { kUnix, kTcp } kind = Kind::kUnix;
  std::string path;  // unix
  std::string host;  // tcp: a name or an address, without IPv6 brackets
  std::string port;  // tcp
  std::string display;
  bool tls = false;  // tcp only: https, the daemon verified against ca_file
  std::string ca_file, cert_file, key_file;
};

// The variables above, as this process has them (HOME for the default DOCKER_CERT_PATH).
struct DockerEnvironment {
  std::string host, tls_verify, tls, cert_path, home;
  static DockerEnvironment FromProcess();
};

// Parses a DOCKER_HOST value alone (no TLS); empty means the default socket.
StatusOr<Endpoint> ParseEndpoint(std::string_view docker_host);

// The endpoint and its TLS files. kInvalidArgument with one line for a value agentbox cannot
// use: a malformed DOCKER_HOST, DOCKER_TLS without DOCKER_TLS_VERIFY, a missing ca.pem, or
// only one of cert.pem and key.pem.
StatusOr<Endpoint> ResolveEndpoint(const DockerEnvironment& env);

// How libcurl reaches it (httpclient/http_client.h).
httpclient::HttpTarget TargetOf(const Endpoint& endpoint);

}  // namespace agentbox::docker
