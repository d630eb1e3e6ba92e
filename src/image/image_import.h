// ImportImage: one image into the store, from blobs someone else fetched (a registry pull, a
// docker save archive, an OCI layout).
//
// Verifies the config against its digest and the platform against this host, unpacks every
// layer the store lacks (each checked against the config's diff_id before it is committed),
// then writes the image's record and names. A layer refused or mismatched leaves nothing: no
// layer directory, no record, no name. Holds the store's shared lock throughout, so gc never
// takes a layer between its commit and the record that names it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "image/image_store.h"
#include "sys/unique_fd.h"

namespace agentbox::image {

struct ImportRequest {
  std::string config_json;         // the config blob's bytes
  std::string config_digest;       // what the manifest (or the file name) says they hash to
  std::string manifest_digest;     // "" for docker save archives
  size_t layer_count = 0;          // the manifest's layers, bottom first
  std::vector<std::string> names;  // canonical names to point at the image
  std::string source;              // for `image inspect`
  UnpackLimits limits;
};

// Layer i's blob (compressed or not), open for reading. Its digest is already verified, or is
// verified by the unpack (docker save layers are named by their uncompressed digest), or by
// `finish`: a blob that streams in while it is unpacked (a registry download) says there how
// its download ended, told whether the unpack succeeded (an unpack that failed stopped reading,
// and its own error says why). ImportImage closes `fd` first, then calls `finish` at most once,
// and commits the layer only when both the unpack and `finish` succeeded; a blob dropped
// unfinished (an error before its unpack) must stop its writer by itself.
struct LayerBlob {
  UniqueFd fd;
  std::function<Status(bool unpacked)> finish;  // empty: nothing more to check
};
using LayerOpener = std::function<StatusOr<LayerBlob>(size_t index)>;

StatusOr<ImageRecord> ImportImage(const ImageStore& store, const ImportRequest& request,
                                  const LayerOpener& open_layer);

// Reads `fd` to its end and compares with `digest` (and `size` unless it is 0). kInvalidArgument
// "digest mismatch" naming `what` otherwise. The fd is rewound to the start afterwards.
Status VerifyBlob(int fd, const std::string& digest, uint64_t size, const std::string& what);

// The platform this binary runs on, in OCI's words ("linux/amd64").
Platform HostPlatform();

}  // namespace agentbox::image
