// `agentbox image import`: a docker image from a rootfs directory or a tar file, no registry.
#pragma once

#include <string>

#include "base/status.h"
#include "docker/engine_client.h"

namespace agentbox::docker {

// SOURCE is a rootfs directory (archived on the fly by docker/tar_writer.h, streamed to the
// daemon as it is made) or a tar file (streamed as is; the daemon also takes gzip/xz/bzip2).
// The image is labelled as ours.
Status ImportImage(EngineClient& client, const std::string& source, const std::string& name);

}  // namespace agentbox::docker
