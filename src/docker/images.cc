#include "docker/images.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "docker/container_config.h"
#include "docker/tar_writer.h"
#include "sys/file_util.h"

namespace agentbox::docker {
namespace {

constexpr int kImportTimeoutMs = 10 * 60 * 1000;

// "repo:tag" -> {"repo", "tag"}; a ':' inside a registry host:port is not a tag separator.
std::pair<std::string, std::string> SplitReference(const std::string& name) {
  size_t colon = name.rfind(':');
  size_t slash = name.rfind('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) {
    return {name, "latest"};
  }
  return {name.substr(0, colon), name.substr(colon + 1)};
}

bool ValidReference(const std::string& name) {
  if (name.empty() || name.size() > 255) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == '/' || c == ':' || (c >= 'A' && c <= 'Z');
    if (!ok) return false;
  }
  return name.front() != ':' && name.front() != '/' && name.back() != ':';
}

}  // namespace

Status CheckImage(EngineClient& client, const std::string& image) {
  AB_ASSIGN_OR_RETURN(HttpResponse r, client.Call("GET", "/images/" + UrlEncode(image) + "/json"));
  if (r.status == 200) return OkStatus();
  if (r.status == 404) {
    return NotFound("image " + image + " not found on the docker daemon (make one with " +
                    "`agentbox image import ROOTFS_DIR " + image + "`)");
  }
  return Unavailable("docker: image " + image + ": " + ErrorMessage(r));
}

Status ImportImage(EngineClient& client, const std::string& source, const std::string& name) {
  if (!ValidReference(name)) {
    return InvalidArgument("image name \"" + name +
                           "\" is not a valid reference (want repo[:tag])");
  }
  struct stat st;
  if (::stat(source.c_str(), &st) != 0) return ErrnoStatus("image source " + source);
  std::string body;
  if (S_ISDIR(st.st_mode)) {
    AB_ASSIGN_OR_RETURN(body, TarFromDirectory(source));
  } else if (S_ISREG(st.st_mode)) {
    AB_ASSIGN_OR_RETURN(body, ReadFile(source));
  } else {
    return InvalidArgument("image source " + source + " is neither a directory nor a tar file");
  }
  auto [repo, tag] = SplitReference(name);
  std::string path = "/images/create?fromSrc=-&repo=" + UrlEncode(repo) + "&tag=" + UrlEncode(tag) +
                     "&changes=" + UrlEncode(std::string("LABEL ") + kLabelManaged + "=1");
  AB_ASSIGN_OR_RETURN(HttpResponse r, client.CallWithBody("POST", path, "application/x-tar", body,
                                                          kImportTimeoutMs));
  if (r.status != 200) return Unavailable("docker: import " + name + ": " + ErrorMessage(r));
  // The answer is a stream of JSON progress objects; a failure is one with "error".
  size_t start = 0;
  while (start < r.body.size()) {
    size_t end = r.body.find('\n', start);
    if (end == std::string::npos) end = r.body.size();
    auto j = nlohmann::json::parse(r.body.substr(start, end - start), nullptr, false);
    if (j.is_object() && j.contains("error")) {
      return Unavailable("docker: import " + name + ": " + j["error"].dump());
    }
    start = end + 1;
  }
  return OkStatus();
}

}  // namespace agentbox::docker
