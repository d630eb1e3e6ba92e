#include "docker/docker_endpoint.h"

#include <unistd.h>

#include <cstdlib>

namespace agentbox::docker {
namespace {

constexpr std::string_view kDefaultSocket = "/var/run/docker.sock";
constexpr std::string_view kDefaultTlsHost = "tcp://localhost:2376";

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool Exists(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

StatusOr<Endpoint> ParseTcp(std::string_view docker_host, Endpoint ep) {
  std::string_view rest = docker_host.substr(6);
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) rest = rest.substr(0, slash);
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size()) {
    return InvalidArgument("DOCKER_HOST " + ep.display + ": want tcp://HOST:PORT");
  }
  ep.kind = Endpoint::Kind::kTcp;
  ep.host = std::string(rest.substr(0, colon));
  if (ep.host.size() > 2 && ep.host.front() == '[' && ep.host.back() == ']') {
    ep.host = ep.host.substr(1, ep.host.size() - 2);
  }
  ep.port = std::string(rest.substr(colon + 1));
  char* end = nullptr;
  long port = std::strtol(ep.port.c_str(), &end, 10);
  if (*end != '\0' || port < 1 || port > 65535) {
    return InvalidArgument("DOCKER_HOST " + ep.display + ": bad port \"" + ep.port + "\"");
  }
  return ep;
}

// DOCKER_TLS_VERIFY's files: the CA always, the client's certificate and key both or neither.
Status FindTlsFiles(const DockerEnvironment& env, Endpoint& ep) {
  std::string dir = !env.cert_path.empty() ? env.cert_path : env.home + "/.docker";
  ep.ca_file = dir + "/ca.pem";
  if (!Exists(ep.ca_file)) {
    return InvalidArgument("DOCKER_TLS_VERIFY is set but " + ep.ca_file +
                           " (the CA that signed the daemon's certificate) cannot be read; set "
                           "DOCKER_CERT_PATH to the directory of ca.pem, cert.pem and key.pem");
  }
  bool cert = Exists(dir + "/cert.pem"), key = Exists(dir + "/key.pem");
  if (cert != key) {
    return InvalidArgument(dir + " has " +
                           (cert ? "cert.pem but no key.pem" : "key.pem but no cert.pem") +
                           ": a client certificate needs both");
  }
  if (cert) {
    ep.cert_file = dir + "/cert.pem";
    ep.key_file = dir + "/key.pem";
  }
  return OkStatus();
}

}  // namespace

DockerEnvironment DockerEnvironment::FromProcess() {
  return {Env("DOCKER_HOST"), Env("DOCKER_TLS_VERIFY"), Env("DOCKER_TLS"), Env("DOCKER_CERT_PATH"),
          Env("HOME")};
}

StatusOr<Endpoint> ParseEndpoint(std::string_view docker_host) {
  Endpoint ep;
  if (docker_host.empty()) {
    ep.path = std::string(kDefaultSocket);
    ep.display = "unix://" + ep.path;
    return ep;
  }
  ep.display = std::string(docker_host);
  if (docker_host.rfind("unix://", 0) == 0) {
    ep.path = std::string(docker_host.substr(7));
    if (ep.path.empty() || ep.path[0] != '/') {
      return InvalidArgument("DOCKER_HOST " + ep.display + ": want unix:///absolute/path");
    }
    return ep;
  }
  if (docker_host.rfind("tcp://", 0) == 0) return ParseTcp(docker_host, std::move(ep));
  return InvalidArgument("DOCKER_HOST " + ep.display +
                         ": only unix:// and tcp:// endpoints are supported");
}

StatusOr<Endpoint> ResolveEndpoint(const DockerEnvironment& env) {
  bool verify = !env.tls_verify.empty();
  std::string host = env.host.empty() && verify ? std::string(kDefaultTlsHost) : env.host;
  AB_ASSIGN_OR_RETURN(Endpoint ep, ParseEndpoint(host));
  if (ep.kind == Endpoint::Kind::kUnix) return ep;
  if (!verify && !env.tls.empty()) {
    return InvalidArgument(
        "DOCKER_TLS without DOCKER_TLS_VERIFY asks for TLS to a daemon whose "
        "certificate is not checked; agentbox only speaks TLS to a verified "
        "daemon: set DOCKER_TLS_VERIFY=1 (and DOCKER_CERT_PATH)");
  }
  if (!verify) return ep;
  ep.tls = true;
  AB_RETURN_IF_ERROR(FindTlsFiles(env, ep));
  return ep;
}

httpclient::HttpTarget TargetOf(const Endpoint& endpoint) {
  httpclient::HttpTarget target;
  target.peer = "the daemon at " + endpoint.display;
  target.unreachable_hint = "; is dockerd running?";
  if (endpoint.kind == Endpoint::Kind::kUnix) {
    target.unix_socket = endpoint.path;
    target.base_url = "http://docker";  // the Host header; the socket is the address
    return target;
  }
  std::string host =
      endpoint.host.find(':') != std::string::npos ? "[" + endpoint.host + "]" : endpoint.host;
  target.base_url = (endpoint.tls ? "https://" : "http://") + host + ":" + endpoint.port;
  target.ca_file = endpoint.ca_file;
  target.cert_file = endpoint.cert_file;
  target.key_file = endpoint.key_file;
  return target;
}

}  // namespace agentbox::docker
