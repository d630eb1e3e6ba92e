// ImageRef: an image reference as users type it ("busybox", "localhost:5000/tools/py:3.11",
// "repo@sha256:..."), parsed and normalised the way docker does.
//
// Pure. A first component with a '.' or ':' or equal to "localhost" is the registry; otherwise
// the registry is docker.io and a one-component name gets "library/". No tag and no digest means
// the tag "latest". Names are stored in their canonical form ("docker.io/library/busybox:latest")
// and shown in their familiar one ("busybox:latest").
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox::image {

struct ImageRef {
  std::string domain;      // "docker.io", "localhost:5000"
  std::string repository;  // "library/busybox"
  std::string tag;         // "latest"; empty when only a digest was given
  std::string digest;      // "sha256:..." or empty

  // "domain/repository:tag", or "domain/repository@digest" when there is no tag.
  std::string Canonical() const;
  // The same without "docker.io/" and "library/".
  std::string Familiar() const;
  // "domain/repository".
  std::string Name() const { return domain + "/" + repository; }
};

// kInvalidArgument naming the reference when it is malformed (upper case in the repository, an
// empty component, a bad tag or digest, more than 255 characters).
StatusOr<ImageRef> ParseImageRef(std::string_view text);

// The familiar form of a canonical name ("docker.io/library/x:1" -> "x:1").
std::string FamiliarName(std::string_view canonical);

// True when the registry is this host's loopback: "localhost[:port]", "127.x.y.z[:port]",
// "[::1][:port]". Plain HTTP is allowed there without being asked for.
bool IsLoopbackRegistry(std::string_view domain);

}  // namespace agentbox::image
