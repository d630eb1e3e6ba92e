#include "docker/engine_client.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace agentbox::docker {
namespace {

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

}  // namespace

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
  AB_ASSIGN_OR_RETURN(Endpoint ep, ResolveEndpoint(DockerEnvironment::FromProcess()));
  EngineClient unversioned(std::move(ep), "");
  // Unversioned: every daemon answers /version whatever it speaks.
  httpclient::HttpRequest request;
  request.path = "/version";
  request.timeout_ms = 10000;
  AB_ASSIGN_OR_RETURN(HttpResponse version, unversioned.Send(std::move(request)));
  if (version.status != 200) {
    return Unavailable("docker: the daemon at " + unversioned.endpoint_.display +
                       " answered /version with " + ErrorMessage(version));
  }
  auto j = nlohmann::json::parse(version.body, nullptr, false);
  if (!j.is_object()) return Unavailable("docker: malformed /version answer");
  AB_ASSIGN_OR_RETURN(std::string api,
                      NegotiateApiVersion(j.value("ApiVersion", ""), j.value("MinAPIVersion", "")));
  unversioned.api_version_ = std::move(api);
  return unversioned;
}

StatusOr<HttpResponse> EngineClient::Call(std::string_view method, std::string_view path,
                                          std::string_view json_body, int timeout_ms) {
  httpclient::HttpRequest request;
  request.method = std::string(method);
  request.path = std::string(path);
  request.timeout_ms = timeout_ms;
  if (!json_body.empty()) {
    request.headers.push_back("Content-Type: application/json");
    request.body = json_body;
    request.has_body = true;
  }
  return Send(std::move(request));
}

StatusOr<HttpResponse> EngineClient::Send(httpclient::HttpRequest request) {
  if (!api_version_.empty()) request.path = "/v" + api_version_ + request.path;
  auto response = httpclient::Perform(target_, request);
  if (!response.ok()) return response.status().WithContext("docker");
  return response;
}

std::string ErrorMessage(const HttpResponse& response) {
  auto j = nlohmann::json::parse(response.body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    return j["message"].get<std::string>();
  }
  return "HTTP " + std::to_string(response.status);
}

}  // namespace agentbox::docker
