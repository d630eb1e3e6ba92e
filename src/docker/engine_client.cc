#include "docker/engine_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

namespace agentbox::docker {
namespace {

constexpr std::string_view kDefaultSocket = "/var/run/docker.sock";

// "1.41" -> {1, 41}; {0, 0} when malformed.
std::pair<int, int> VersionParts(std::string_view v) {
  size_t dot = v.find('.');
  if (dot == std::string_view::npos) return {0, 0};
  return {std::atoi(std::string(v.substr(0, dot)).c_str()),
          std::atoi(std::string(v.substr(dot + 1)).c_str())};
}

bool VersionLess(std::string_view a, std::string_view b) {
  return VersionParts(a) < VersionParts(b);
}

StatusOr<UniqueFd> Dial(const Endpoint& ep) {
  if (ep.kind == Endpoint::Kind::kUnix) {
    struct sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    if (ep.path.size() >= sizeof(addr.sun_path))
      return InvalidArgument("DOCKER_HOST path too long");
    std::memcpy(addr.sun_path, ep.path.c_str(), ep.path.size() + 1);
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd.valid()) return ErrnoStatus("socket");
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      return Unavailable("docker: cannot reach the daemon at " + ep.display + " (" +
                         std::strerror(errno) + "); is dockerd running?");
    }
    return fd;
  }
  // agentbox is linked statically, where name lookups (NSS) are not available: an IP address,
  // or localhost.
  struct sockaddr_storage addr = {};
  socklen_t len = 0;
  std::string host = ep.host == "localhost" ? "127.0.0.1" : ep.host;
  int port = std::atoi(ep.port.c_str());
  auto* v4 = reinterpret_cast<struct sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<struct sockaddr_in6*>(&addr);
  if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof(*v4);
  } else if (::inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof(*v6);
  } else {
    return InvalidArgument("DOCKER_HOST " + ep.display +
                           ": give the daemon's IP address (or localhost), not a host name");
  }
  UniqueFd fd(::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  if (::connect(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), len) != 0) {
    return Unavailable("docker: cannot reach the daemon at " + ep.display + " (" +
                       std::strerror(errno) + "); is dockerd running?");
  }
  return fd;
}

Status SendAll(int fd, std::string_view data, std::chrono::steady_clock::time_point deadline) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return ErrnoStatus("docker: send");
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Unavailable("docker: the daemon did not answer in time");
    struct pollfd pfd = {fd, POLLOUT, 0};
    ::poll(&pfd, 1, static_cast<int>(left.count()));
  }
  return OkStatus();
}

}  // namespace

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
  if (docker_host.rfind("tcp://", 0) == 0) {
    std::string_view rest = docker_host.substr(6);
    if (size_t slash = rest.find('/'); slash != std::string_view::npos)
      rest = rest.substr(0, slash);
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
  return InvalidArgument("DOCKER_HOST " + ep.display +
                         ": only unix:// and tcp:// endpoints are supported");
}

StatusOr<std::string> NegotiateApiVersion(std::string_view server_version,
                                          std::string_view server_min) {
  if (VersionParts(server_version).first == 0) {
    return Unavailable("docker: the daemon reported no API version");
  }
  if (VersionLess(server_version, kOldestApiVersion)) {
    return Unavailable("docker: the daemon speaks API " + std::string(server_version) +
                       ", agentbox needs " + std::string(kOldestApiVersion) + " or newer");
  }
  std::string chosen(VersionLess(kNewestApiVersion, server_version) ? kNewestApiVersion
                                                                    : server_version);
  if (!server_min.empty() && VersionLess(chosen, server_min)) {
    return Unavailable("docker: the daemon needs API " + std::string(server_min) +
                       " or newer, agentbox speaks up to " + std::string(kNewestApiVersion));
  }
  return chosen;
}

StatusOr<EngineClient> EngineClient::FromEnvironment() {
  const char* env = std::getenv("DOCKER_HOST");
  AB_ASSIGN_OR_RETURN(Endpoint ep, ParseEndpoint(env ? env : ""));
  // Unversioned: every daemon answers /version whatever it speaks.
  AB_ASSIGN_OR_RETURN(HttpResponse version,
                      RoundTrip(ep, BuildHttpRequest("GET", "/version", "", ""), 10000));
  if (version.status != 200) {
    return Unavailable("docker: the daemon at " + ep.display + " answered /version with " +
                       ErrorMessage(version));
  }
  auto j = nlohmann::json::parse(version.body, nullptr, false);
  if (!j.is_object()) return Unavailable("docker: malformed /version answer");
  AB_ASSIGN_OR_RETURN(std::string api,
                      NegotiateApiVersion(j.value("ApiVersion", ""), j.value("MinAPIVersion", "")));
  return EngineClient(std::move(ep), std::move(api));
}

StatusOr<HttpResponse> EngineClient::Call(std::string_view method, std::string_view path,
                                          std::string_view json_body, int timeout_ms) {
  return CallWithBody(method, path, json_body.empty() ? "" : "application/json", json_body,
                      timeout_ms);
}

StatusOr<HttpResponse> EngineClient::CallWithBody(std::string_view method, std::string_view path,
                                                  std::string_view content_type,
                                                  std::string_view body, int timeout_ms) {
  std::string versioned = "/v" + api_version_ + std::string(path);
  return RoundTrip(endpoint_, BuildHttpRequest(method, versioned, content_type, body), timeout_ms);
}

StatusOr<HttpResponse> EngineClient::RoundTrip(const Endpoint& endpoint, const std::string& request,
                                               int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  AB_ASSIGN_OR_RETURN(UniqueFd fd, Dial(endpoint));
  AB_RETURN_IF_ERROR(SendAll(fd.get(), request, deadline));
  std::string raw;
  char buf[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Unavailable("docker: the daemon did not answer in time");
    struct pollfd pfd = {fd.get(), POLLIN, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::recv(fd.get(), buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("docker: recv");
    if (n == 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  return ParseHttpResponse(raw);
}

std::string ErrorMessage(const HttpResponse& response) {
  auto j = nlohmann::json::parse(response.body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    return j["message"].get<std::string>();
  }
  return "HTTP " + std::to_string(response.status);
}

}  // namespace agentbox::docker
