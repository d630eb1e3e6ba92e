#include "registry/registry_client.h"

#include <algorithm>

#include "base/json_limits.h"
#include "image/digest.h"

namespace agentbox::registry {
namespace {

using httpclient::HttpRequest;
using httpclient::HttpResponse;

std::string Scheme(const std::string& url) { return url.substr(0, url.find("://")); }

// Redirects a registry may send (a blob to a CDN, and the CDN's own hops).
constexpr int kMaxRedirects = 5;
// An error page's body is kept for its message; a longer one is cut off with an error.
constexpr size_t kMaxErrorPage = size_t{1} << 16;

}  // namespace

StatusOr<httpclient::HttpTarget> TargetForUrl(std::string_view url, std::string* path) {
  size_t scheme_end = url.find("://");
  std::string_view scheme = url.substr(0, scheme_end);
  if (scheme_end == std::string_view::npos || (scheme != "https" && scheme != "http")) {
    return InvalidArgument("not an http(s) URL: " + std::string(url.substr(0, 200)));
  }
  size_t path_start = url.find_first_of("/?", scheme_end + 3);
  httpclient::HttpTarget target;
  target.base_url = std::string(url.substr(0, path_start));
  target.peer = std::string(url.substr(scheme_end + 3, path_start - scheme_end - 3));
  target.environment_proxy = true;
  *path = path_start == std::string_view::npos ? "/" : std::string(url.substr(path_start));
  if (path->front() == '?') path->insert(0, "/");
  return target;
}

StatusOr<RegistryClient> RegistryClient::Connect(const image::ImageRef& ref,
                                                 const RegistryOptions& opt) {
  RegistryClient c;
  c.domain_ = ref.domain == "docker.io" ? "registry-1.docker.io" : ref.domain;
  c.repo_ = ref.repository;
  const auto& insecure = opt.insecure_registries;
  c.allow_http_ = image::IsLoopbackRegistry(ref.domain) ||
                  std::find(insecure.begin(), insecure.end(), ref.domain) != insecure.end();
  c.timeout_seconds_ = std::max(1, opt.timeout_seconds);
  AB_ASSIGN_OR_RETURN(c.creds_, LoadCredentials(ref.domain));
  c.target_.base_url = "https://" + c.domain_;
  c.target_.peer = "registry " + c.domain_;
  c.target_.environment_proxy = true;
  // The API's base answers 200 or 401; which scheme answers at all is what matters here.
  HttpRequest probe = c.Request("/v2/", c.timeout_seconds_);
  auto r = httpclient::Perform(c.target_, probe);
  if (!r.ok() && c.allow_http_ && r.status().code() == StatusCode::kUnavailable) {
    c.target_.base_url = "http://" + c.domain_;
    r = httpclient::Perform(c.target_, probe);
  }
  if (!r.ok()) return r.status();
  return c;
}

HttpRequest RegistryClient::Request(const std::string& path, int stall_seconds) const {
  HttpRequest req;
  req.path = path;
  req.timeout_ms = 0;  // a large layer on a slow link may take long; a stall may not
  req.connect_timeout_ms = timeout_seconds_ * 1000;
  req.stall_timeout_ms = stall_seconds * 1000;
  req.max_body = kMaxErrorPage;
  req.max_redirects = kMaxRedirects;
  req.redirect_to_http = allow_http_;
  return req;
}

Status RegistryClient::Authenticate(const HttpResponse& unauthorized) {
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
  std::string path;
  AB_ASSIGN_OR_RETURN(httpclient::HttpTarget realm_target, TargetForUrl(realm, &path));
  realm_target.peer = "the token service of " + domain_;
  path += std::string(path.find('?') == std::string::npos ? "?" : "&") +
          "service=" + httpclient::UrlEncode(ch.params["service"]) +
          "&scope=" + httpclient::UrlEncode(scope);
  HttpRequest req = Request(path, timeout_seconds_);
  req.max_body = size_t{1} << 20;
  if (creds_) req.headers.push_back("Authorization: " + BasicAuthorization(*creds_));
  AB_ASSIGN_OR_RETURN(HttpResponse r, httpclient::Perform(realm_target, req));
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

StatusOr<HttpResponse> RegistryClient::Get(HttpRequest request) {
  const std::vector<std::string> headers = request.headers;
  for (int attempt = 0;; ++attempt) {
    request.headers = headers;
    if (!authorization_.empty()) request.headers.push_back("Authorization: " + authorization_);
    // A 401's body is collected, never streamed (on_body sees 2xx bodies only), so the retry
    // starts the sink from nothing.
    AB_ASSIGN_OR_RETURN(HttpResponse r, httpclient::Perform(target_, request));
    if (r.status != 401 || attempt > 0) return r;
    AB_RETURN_IF_ERROR(Authenticate(r));
  }
}

Status RegistryClient::CheckStatus(const HttpResponse& r, const std::string& what) const {
  if (r.status >= 200 && r.status <= 299) return OkStatus();
  std::string where = domain_ + "/" + repo_;
  if (r.status == 404) return NotFound(where + ": no " + what + " (404)");
  if (r.status == 401 || r.status == 403) {
    return PermissionDenied(where + ": " + what + " refused (" + std::to_string(r.status) + ")");
  }
  return Unavailable(where + ": " + what + ": the registry answered " + std::to_string(r.status));
}

StatusOr<FetchedManifest> RegistryClient::GetManifest(const std::string& reference) {
  HttpRequest req = Request("/v2/" + repo_ + "/manifests/" + reference, timeout_seconds_);
  req.headers.push_back("Accept: " + std::string(image::kManifestAccept));
  req.max_body = image::kMaxJsonBlobBytes;
  AB_ASSIGN_OR_RETURN(HttpResponse r, Get(std::move(req)));
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
                           ": manifest digest mismatch: its content is " + m.digest +
                           ", expected " + expected);
  }
  return m;
}

StatusOr<std::string> RegistryClient::GetSmallBlob(const image::Descriptor& d) {
  if (d.size > image::kMaxJsonBlobBytes) {
    return InvalidArgument("the image config is larger than 4 MiB");
  }
  std::string body;
  AB_RETURN_IF_ERROR(GetBlob(d, [&body](std::string_view piece) {
    body.append(piece);
    return OkStatus();
  }));
  return body;
}

Status RegistryClient::GetBlob(const image::Descriptor& d,
                               const std::function<Status(std::string_view)>& sink) {
  image::Sha256 hash;
  uint64_t bytes = 0;
  HttpRequest req = Request("/v2/" + repo_ + "/blobs/" + d.digest, timeout_seconds_);
  req.on_body = [&](std::string_view piece) -> Status {
    bytes += piece.size();
    if (bytes > d.size) {
      return InvalidArgument("blob " + d.digest + ": the registry sent more than the " +
                             std::to_string(d.size) + " bytes of its descriptor");
    }
    hash.Update(piece.data(), piece.size());
    return sink(piece);
  };
  AB_ASSIGN_OR_RETURN(HttpResponse r, Get(std::move(req)));
  AB_RETURN_IF_ERROR(CheckStatus(r, "blob " + d.digest));
  std::string got = hash.Digest();
  if (got != d.digest || bytes != d.size) {
    return InvalidArgument("blob " + d.digest + ": digest mismatch: its content is " + got + " (" +
                           std::to_string(bytes) + " bytes, expected " + std::to_string(d.size) +
                           ")");
  }
  return OkStatus();
}

}  // namespace agentbox::registry
