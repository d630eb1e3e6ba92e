#include "docker/image_pull.h"

#include <nlohmann/json.hpp>

namespace agentbox::docker {
namespace {

// Keeps the last partial line of the progress stream and stops at the first error in it.
struct ProgressReader {
  std::string partial;
  std::string error;

  Status Take(std::string_view piece) {
    partial.append(piece);
    size_t nl;
    while ((nl = partial.find('\n')) != std::string::npos) {
      std::string line = partial.substr(0, nl);
      partial.erase(0, nl + 1);
      if (error.empty()) error = FirstStreamError(line);
    }
    return OkStatus();
  }
};

Status PullError(const std::string& image, int status, const std::string& message) {
  std::string line =
      "image " + image + " not found on the docker daemon, and pulling it failed: " + message;
  // The daemon answers 404 for a repository or tag the registry does not have, and in the
  // stream "manifest unknown" / "not found" for one that went missing meanwhile.
  bool missing = status == 404 || message.find("manifest unknown") != std::string::npos ||
                 message.find("not found") != std::string::npos;
  return missing ? NotFound(line) : Unavailable(line);
}

}  // namespace

std::pair<std::string, std::string> SplitReference(const std::string& name) {
  if (size_t at = name.find('@'); at != std::string::npos) {
    return {name.substr(0, at), name.substr(at + 1)};
  }
  size_t colon = name.rfind(':');
  size_t slash = name.rfind('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) {
    return {name, "latest"};
  }
  return {name.substr(0, colon), name.substr(colon + 1)};
}

std::string FirstStreamError(std::string_view lines) {
  size_t start = 0;
  while (start < lines.size()) {
    size_t end = lines.find('\n', start);
    if (end == std::string_view::npos) end = lines.size();
    auto j = nlohmann::json::parse(lines.substr(start, end - start), nullptr, false);
    if (j.is_object() && j.contains("error")) {
      return j["error"].is_string() ? j["error"].get<std::string>() : j["error"].dump();
    }
    start = end + 1;
  }
  return "";
}

Status EnsureImage(EngineClient& client, const std::string& image, bool may_pull) {
  AB_ASSIGN_OR_RETURN(HttpResponse r, client.Call("GET", "/images/" + UrlEncode(image) + "/json"));
  if (r.status == 200) return OkStatus();
  if (r.status != 404) return Unavailable("docker: image " + image + ": " + ErrorMessage(r));
  if (!may_pull) {
    return NotFound("image " + image +
                    " not found on the docker daemon, and this create does not pull (serve never "
                    "does): docker pull it first");
  }
  auto [repo, tag] = SplitReference(image);
  ProgressReader progress;
  httpclient::HttpRequest pull;
  pull.method = "POST";
  pull.path = "/images/create?fromImage=" + UrlEncode(repo) + "&tag=" + UrlEncode(tag);
  pull.timeout_ms = kPullTimeoutMs;
  pull.stall_timeout_ms = kPullStallMs;
  pull.max_body = 1 << 16;  // an error answer (a 2xx progress stream goes to on_body)
  pull.on_body = [&progress](std::string_view piece) { return progress.Take(piece); };
  auto pulled = client.Send(std::move(pull));
  if (!pulled.ok()) {
    return Unavailable(
        "image " + image +
        " not found on the docker daemon, and pulling it failed: " + pulled.status().message());
  }
  if (pulled->status != 200) return PullError(image, pulled->status, ErrorMessage(*pulled));
  (void)progress.Take("\n");  // the last line, if the stream did not end it
  if (!progress.error.empty()) return PullError(image, 200, progress.error);
  return OkStatus();
}

}  // namespace agentbox::docker
