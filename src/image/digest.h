// Content digests of OCI blobs and layers: "sha256:<64 lowercase hex>".
//
// Pure apart from nettle's SHA-256. Every blob agentbox takes in (a manifest, a config, a
// compressed layer, a layer's uncompressed tar stream) is hashed while it is read and compared
// with the digest its parent named, so content that does not match what was asked for is never
// stored under that name.
#pragma once

#include <string>
#include <string_view>

#include "base/sha256.h"
#include "base/status.h"

namespace agentbox::image {

// The streaming hasher and Sha256Of are base/sha256.h's, named here for the store's callers.
using agentbox::Sha256;
using agentbox::Sha256Of;

// kInvalidArgument unless `digest` is "sha256:" followed by 64 lowercase hex digits (the only
// algorithm accepted: OCI's sha512 is rare, and an unknown one cannot be verified).
Status CheckDigest(std::string_view digest);

// The 64 hex digits of a checked digest (the name of its file or directory in the store).
std::string DigestHex(std::string_view digest);

}  // namespace agentbox::image
