// The OCI image JSON documents agentbox reads: image indexes (and docker manifest lists), image
// manifests (OCI and docker schema 2), image configs. Docker's schema 1 is refused.
//
// Pure: text in, plain structs out, kInvalidArgument with the field at fault. Nothing here
// trusts a size or digest it did not check: callers verify every blob against its Descriptor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox::image {

inline constexpr std::string_view kOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr std::string_view kDockerList =
    "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr std::string_view kOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr std::string_view kDockerManifest =
    "application/vnd.docker.distribution.manifest.v2+json";
// What a manifest request accepts, in one Accept header.
inline constexpr std::string_view kManifestAccept =
    "application/vnd.oci.image.index.v1+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json, "
    "application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.docker.distribution.manifest.v2+json";

// The largest manifest, index or config agentbox reads (docker's own limit is 4 MiB).
inline constexpr uint64_t kMaxJsonBlobBytes = 4u << 20;

struct Platform {
  std::string os = "linux";
  std::string architecture = "amd64";
  std::string variant;  // "v8" for arm64, usually empty
};

// "linux/amd64", "linux/arm64/v8"; kInvalidArgument otherwise.
StatusOr<Platform> ParsePlatform(std::string_view text);
std::string PlatformString(const Platform& p);

struct Descriptor {
  std::string media_type;
  std::string digest;  // checked: sha256:<hex>
  uint64_t size = 0;
  Platform platform;  // index entries only
  bool has_platform = false;
};

struct Manifest {
  Descriptor config;
  std::vector<Descriptor> layers;  // bottom first
};

struct ImageConfig {
  Platform platform;
  std::vector<std::string> env;  // "KEY=VALUE"
  std::string working_dir;
  std::string user;
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
  std::vector<std::string> diff_ids;  // digests of the uncompressed layers, bottom first
  std::string created;
};

enum class DocumentKind { kIndex, kManifest };

// What a manifest document is, from its mediaType field (or the Content-Type the registry sent
// when the field is absent). kInvalidArgument for schema 1 and anything unknown.
StatusOr<DocumentKind> ClassifyDocument(std::string_view body, std::string_view content_type);
StatusOr<std::vector<Descriptor>> ParseIndex(std::string_view body);
StatusOr<Manifest> ParseManifest(std::string_view body);
StatusOr<ImageConfig> ParseImageConfig(std::string_view body);

// The index entry for `want`; kNotFound listing the platforms the index has.
StatusOr<Descriptor> SelectPlatform(const std::vector<Descriptor>& index, const Platform& want);

// True for the layer media types agentbox unpacks (tar, gzip, zstd; OCI and docker names).
bool IsLayerMediaType(std::string_view media_type);

}  // namespace agentbox::image
