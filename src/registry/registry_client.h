// RegistryClient: the OCI distribution API's read side — manifests and blobs of one repository —
// with the registry's authentication, over httpclient/ (libcurl, loaded on first use).
//
// HTTPS always, except for a loopback registry or one the user named with --insecure-registry:
// there https is tried first and plain http used when no TLS answers (docker's rule). Redirects
// (a blob served by a CDN) are followed, at most 5, to https only (http too where http is
// allowed), and the Authorization header never follows one to another host (http_client.h). On
// a 401 the WWW-Authenticate challenge is answered once: Bearer fetches a token from the realm
// (sent the credentials of registry_auth.h as Basic when there are any; a realm over plain http
// only where http is allowed), Basic sends the credentials. Every transfer has a connect timeout
// and a stall timeout (`timeout_seconds` each) and no overall limit, so a large layer on a slow
// link completes while a registry that stops sending is cut. Every manifest is checked against
// the digest it was asked by, or the Docker-Content-Digest the registry sent; every blob against
// its descriptor's digest and size, while it is written.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "httpclient/http_client.h"
#include "image/image_ref.h"
#include "image/oci_json.h"
#include "registry/registry_auth.h"

namespace agentbox::registry {

struct RegistryOptions {
  std::vector<std::string> insecure_registries;  // hosts where plain http is allowed
  int timeout_seconds = 30;                      // connect, and the longest stall of a transfer
};

struct FetchedManifest {
  std::string body;
  std::string media_type;
  std::string digest;  // sha256 of body, checked
};

class RegistryClient {
 public:
  static StatusOr<RegistryClient> Connect(const image::ImageRef& ref, const RegistryOptions& opt);

  // `reference` is a tag or a digest. kNotFound for an unknown tag or digest.
  StatusOr<FetchedManifest> GetManifest(const std::string& reference);
  // A small blob (a config), into memory.
  StatusOr<std::string> GetSmallBlob(const image::Descriptor& d);
  // A blob, each piece handed to `sink` as it arrives (written to a file, unpacked); checked
  // against d's size as it comes and its digest at the end. kInvalidArgument "digest mismatch"
  // when the whole does not hash to d.digest: the caller then drops what the sink made of it.
  Status GetBlob(const image::Descriptor& d, const std::function<Status(std::string_view)>& sink);

 private:
  RegistryClient() = default;
  httpclient::HttpRequest Request(const std::string& path, int stall_seconds) const;
  // GET `request` on the registry, answering a 401's challenge once.
  StatusOr<httpclient::HttpResponse> Get(httpclient::HttpRequest request);
  Status Authenticate(const httpclient::HttpResponse& unauthorized);
  Status CheckStatus(const httpclient::HttpResponse& r, const std::string& what) const;

  std::string domain_;
  std::string repo_;
  bool allow_http_ = false;
  int timeout_seconds_ = 30;
  httpclient::HttpTarget target_;  // base_url "https://host:port" (or http://)
  std::string authorization_;
  std::optional<Credentials> creds_;
};

// The HttpTarget for an absolute URL ("https://host/path?q" -> base "https://host", the rest
// returned in `path`); kInvalidArgument for one that is not http(s).
StatusOr<httpclient::HttpTarget> TargetForUrl(std::string_view url, std::string* path);

}  // namespace agentbox::registry
