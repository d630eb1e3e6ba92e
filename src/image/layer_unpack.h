// UnpackLayer: one image layer (a tar stream, maybe compressed) written into an empty directory
// in overlayfs's form, refusing anything that could reach outside it or give privilege.
//
// Host side, as root (whiteouts are 0/0 character devices, opaque directories carry the
// trusted.overlay.opaque xattr: both need the host's root). What it does with each entry:
//  - a path with a ".." component is refused; leading "/" and "./" are dropped;
//  - nothing is ever written through a symlink: every parent directory is opened component by
//    component with O_NOFOLLOW (an entry below a symlink of the layer is refused), every leaf is
//    created with O_EXCL / *at calls that do not follow; symlinks themselves are stored as they
//    are (an absolute one resolves inside the sandbox's root when used there, never on the host);
//  - a hard link must name a file of the same layer, by the same rules;
//  - character and block devices are refused (the sandbox's /dev is made by agentbox); FIFOs
//    are kept, sockets skipped;
//  - setuid and setgid bits are dropped, and every xattr (file capabilities included);
//  - owners are mapped into the sandbox's user namespace: image uid/gid N is host id
//    kSandboxHostRootId + N (0 stays root inside, 1000 is the sandbox user), N > 65535 nobody;
//  - `.wh.NAME` becomes a whiteout of NAME, `.wh..wh..opq` makes its directory opaque;
//  - more than `max_bytes` uncompressed, or `max_entries` entries, stops it (tar bombs).
// On failure the directory is left half-written: the caller unpacks into a temporary directory
// and renames it into the store only on success (image/layer_store.h).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace agentbox::image {

struct UnpackLimits {
  uint64_t max_bytes = 16ull << 30;  // uncompressed bytes of one layer (and declared file sizes)
  uint64_t max_entries = 1'000'000;  // entries of one layer
};

struct UnpackedLayer {
  std::string diff_id;  // sha256 of the uncompressed tar stream
  uint64_t bytes = 0;   // uncompressed stream size
  uint64_t entries = 0;
  uint64_t setid_dropped = 0;  // files whose setuid/setgid bit was dropped
};

// The host uid/gid an image's id `id` is stored as (see above).
uint32_t HostIdForImageId(uint64_t id);

// Reads the layer from `blob_fd` and writes it beneath `dest_dir` (an existing empty directory).
// Errors name the entry: kInvalidArgument for a refused entry or a corrupt stream,
// kResourceExhausted for a ceiling, kUnavailable for the host's disk (ENOSPC, EDQUOT).
StatusOr<UnpackedLayer> UnpackLayer(int blob_fd, const std::string& dest_dir,
                                    const UnpackLimits& limits);

}  // namespace agentbox::image
