// RegistryClient: the OCI distribution API's read side — manifests and blobs of one repository —
// with the registry's authentication.
//
// HTTPS always, except for a loopback registry or one the user named with --insecure-registry:
// there https is tried first and plain http used when no TLS answers (docker's rule). On a 401
// the WWW-Authenticate challenge is answered once: Bearer fetches a token from the realm (sent
// the credentials of registry_auth.h as Basic when there are any; a realm over plain http only
// where http is allowed), Basic sends the credentials. Every manifest is checked against the
// digest it was asked by, or the Docker-Content-Digest the registry sent; every blob against its
// descriptor's digest and size, while it is written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "image/image_ref.h"
#include "image/oci_json.h"
#include "registry/http_fetch.h"
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
  // A blob into `fd` (at its start, truncated on a retry).
  Status GetBlob(const image::Descriptor& d, int fd);

 private:
  RegistryClient() = default;
  StatusOr<FetchResponse> Get(const std::string& path, const std::string& accept, uint64_t max,
                              int fd, image::Sha256* hash);
  Status Authenticate(const FetchResponse& unauthorized);
  Status CheckStatus(const FetchResponse& r, const std::string& what);

  std::string domain_;
  std::string base_;  // "https://host:port"
  std::string repo_;
  bool allow_http_ = false;
  std::string authorization_;
  std::optional<Credentials> creds_;
  FetchOptions fetch_;
};

}  // namespace agentbox::registry
