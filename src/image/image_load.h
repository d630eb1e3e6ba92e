// LoadImages: images from a `docker save` archive or an OCI image layout (a directory, or a
// tar of one), as `agentbox image load` takes them — no registry, no daemon.
//
// A tar is first unpacked by the same unpacker as a layer (so its paths are held to the same
// rules) into a directory under the store's tmp/, removed afterwards. In the directory:
// `oci-layout` + `index.json` is an OCI layout (nested indexes resolved for this host's
// platform), else `manifest.json` is docker's format. Every file is opened beneath the
// directory (openat2 RESOLVE_BENEATH) and every blob checked against its digest (symlinks inside it
// resolve beneath it, or are refused).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "image/image_store.h"

namespace agentbox::image {

struct LoadRequest {
  std::string path;  // a file (tar, maybe compressed) or a directory
  std::string tag;   // a name for the image when the archive holds exactly one; "" none
  UnpackLimits limits;
  std::string source;  // for the records; default "load PATH"
};

StatusOr<std::vector<ImageRecord>> LoadImages(const ImageStore& store, const LoadRequest& request);

// The same for an archive read from `fd` as it comes (a pipe or socket will do: it is read once,
// front to back); request.path only names it in messages.
StatusOr<std::vector<ImageRecord>> LoadImageArchive(const ImageStore& store, int fd,
                                                    const LoadRequest& request);

}  // namespace agentbox::image
