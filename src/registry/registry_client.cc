#include "registry/registry_client.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>

#include "base/json_limits.h"
#include "image/digest.h"

namespace agentbox::registry {
namespace {

std::string Scheme(const std::string& url) { return url.substr(0, url.find("://")); }

// A URL query value, percent-encoded by libcurl.
std::string QueryEscape(const std::string& value) {
  char* escaped = curl_easy_escape(nullptr, value.c_str(), static_cast<int>(value.size()));
  std::string out = escaped != nullptr ? escaped : "";
  curl_free(escaped);
  return out;
}

}  // namespace

StatusOr<RegistryClient> RegistryClient::Connect(const image::ImageRef& ref,
                                                 const RegistryOptions& opt) {
  RegistryClient c;
  c.domain_ = ref.domain == "docker.io" ? "registry-1.docker.io" : ref.domain;
  c.repo_ = ref.repository;
  const auto& insecure = opt.insecure_registries;
  c.allow_http_ = image::IsLoopbackRegistry(ref.domain) ||
                  std::find(insecure.begin(), insecure.end(), ref.domain) != insecure.end();
  c.fetch_.connect_seconds = opt.timeout_seconds;
  c.fetch_.stall_seconds = opt.timeout_seconds;
  c.fetch_.allow_http_redirects = c.allow_http_;
  AB_ASSIGN_OR_RETURN(c.creds_, LoadCredentials(ref.domain));
  // The API's base answers 200 or 401; which scheme answers at all is what matters here.
  c.base_ = "https://" + c.domain_;
  FetchRequest probe{c.base_ + "/v2/", {}, 1 << 16};
  auto r = HttpGet(probe, c.fetch_);
  if (!r.ok() && c.allow_http_ && r.status().code() == StatusCode::kUnavailable) {
    c.base_ = "http://" + c.domain_;
    probe.url = c.base_ + "/v2/";
    r = HttpGet(probe, c.fetch_);
  }
  if (!r.ok()) return r.status();
  return c;
}

Status RegistryClient::Authenticate(const FetchResponse& unauthorized) {
  auto header = unauthorized.headers.find("www-authenticate");
  if (header == unauthorized.headers.end()) {
    return PermissionDenied("registry " + domain_ +
                            " refused the request (401) without saying how to log in");
  }
  AB_ASSIGN_OR_RETURN(Challenge ch, ParseChallenge(header->second));
  if (ch.scheme == "basic") {
    if (!creds_) {
      return PermissionDenied("registry " + domain_ +
                              " needs a login: add it to docker's "
                              "config.json (\"auths\"), see docs/policy.md");
    }
    authorization_ = BasicAuthorization(*creds_);
    return OkStatus();
  }
  const std::string& realm = ch.params["realm"];
  if (Scheme(realm) != "https" && !(Scheme(realm) == "http" && allow_http_)) {
    return PermissionDenied("registry " + domain_ +
                            " sends its token realm over plain http: " + realm.substr(0, 200));
  }
  std::string scope =
      ch.params.count("scope") ? ch.params["scope"] : "repository:" + repo_ + ":pull";
  std::string url = realm + (realm.find('?') == std::string::npos ? "?" : "&") +
                    "service=" + QueryEscape(ch.params["service"]) + "&scope=" + QueryEscape(scope);
  FetchRequest req{url, {}, 1 << 20};
  if (creds_) req.headers.push_back("Authorization: " + BasicAuthorization(*creds_));
  AB_ASSIGN_OR_RETURN(FetchResponse r, HttpGet(req, fetch_));
  if (r.status == 401 || r.status == 403) {
    return PermissionDenied(
        "the token service of " + domain_ + " refused " +
        (creds_ ? "the credentials in docker's config.json" : "an anonymous pull"));
  }
  if (r.status != 200) {
    return Unavailable("the token service of " + domain_ + " answered " + std::to_string(r.status));
  }
  auto j = ParseJsonWithLimits(r.body);
  std::string token;
  for (const char* key : {"token", "access_token"}) {
    if (token.empty() && j.ok() && j->is_object() && j->contains(key) && (*j)[key].is_string()) {
      token = (*j)[key].get<std::string>();
    }
  }
  if (token.empty()) return Unavailable("the token service of " + domain_ + " sent no token");
  authorization_ = "Bearer " + token;
  return OkStatus();
}

StatusOr<FetchResponse> RegistryClient::Get(const std::string& path, const std::string& accept,
                                            uint64_t max, int fd, image::Sha256* hash) {
  for (int attempt = 0;; ++attempt) {
    FetchRequest req{base_ + path, {}, max, fd, hash};
    if (!accept.empty()) req.headers.push_back("Accept: " + accept);
    if (!authorization_.empty()) req.headers.push_back("Authorization: " + authorization_);
    AB_ASSIGN_OR_RETURN(FetchResponse r, HttpGet(req, fetch_));
    if (r.status != 401 || attempt > 0) return r;
    AB_RETURN_IF_ERROR(Authenticate(r));
    if (fd >= 0 && (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0)) {
      return ErrnoStatus("truncate a download");
    }
    if (hash != nullptr) *hash = image::Sha256();
  }
}

Status RegistryClient::CheckStatus(const FetchResponse& r, const std::string& what) {
  if (r.status >= 200 && r.status <= 299) return OkStatus();
  std::string where = domain_ + "/" + repo_;
  if (r.status == 404) return NotFound(where + ": no " + what + " (404)");
  if (r.status == 401 || r.status == 403) {
    return PermissionDenied(where + ": " + what + " refused (" + std::to_string(r.status) + ")");
  }
  return Unavailable(where + ": " + what + ": the registry answered " + std::to_string(r.status));
}

StatusOr<FetchedManifest> RegistryClient::GetManifest(const std::string& reference) {
  AB_ASSIGN_OR_RETURN(FetchResponse r, Get("/v2/" + repo_ + "/manifests/" + reference,
                                           std::string(image::kManifestAccept),
                                           image::kMaxJsonBlobBytes, -1, nullptr));
  bool by_digest = reference.rfind("sha256:", 0) == 0;
  AB_RETURN_IF_ERROR(
      CheckStatus(r, by_digest ? "manifest " + reference : "tag \"" + reference + "\""));
  FetchedManifest m;
  m.body = std::move(r.body);
  m.media_type = r.headers["content-type"];
  m.digest = image::Sha256Of(m.body);
  std::string expected = by_digest ? reference : r.headers["docker-content-digest"];
  if (!expected.empty() && expected != m.digest) {
    return InvalidArgument(domain_ + "/" + repo_ + ":" + reference +
                           ": manifest digest mismatch: "
                           "its content is " +
                           m.digest + ", expected " + expected);
  }
  return m;
}

StatusOr<std::string> RegistryClient::GetSmallBlob(const image::Descriptor& d) {
  if (d.size > image::kMaxJsonBlobBytes)
    return InvalidArgument("the image config is larger than 4 MiB");
  AB_ASSIGN_OR_RETURN(FetchResponse r,
                      Get("/v2/" + repo_ + "/blobs/" + d.digest, "", d.size, -1, nullptr));
  AB_RETURN_IF_ERROR(CheckStatus(r, "blob " + d.digest));
  if (image::Sha256Of(r.body) != d.digest) {
    return InvalidArgument("blob " + d.digest + ": digest mismatch: its content is " +
                           image::Sha256Of(r.body));
  }
  return r.body;
}

Status RegistryClient::GetBlob(const image::Descriptor& d, int fd) {
  image::Sha256 hash;
  AB_ASSIGN_OR_RETURN(FetchResponse r,
                      Get("/v2/" + repo_ + "/blobs/" + d.digest, "", d.size, fd, &hash));
  AB_RETURN_IF_ERROR(CheckStatus(r, "blob " + d.digest));
  std::string got = hash.Digest();
  if (got != d.digest || r.bytes != d.size) {
    return InvalidArgument("blob " + d.digest + ": digest mismatch: its content is " + got + " (" +
                           std::to_string(r.bytes) + " bytes, expected " + std::to_string(d.size) +
                           ")");
  }
  return OkStatus();
}

}  // namespace agentbox::registry
