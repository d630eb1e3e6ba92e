// Images for the docker backend: check one exists, import one from a rootfs without a registry.
#pragma once

#include <string>

#include "base/status.h"
#include "docker/engine_client.h"

namespace agentbox::docker {

// kNotFound with a line that says how to make the image when the daemon does not have it.
Status CheckImage(EngineClient& client, const std::string& image);

// `agentbox image import SOURCE NAME`: SOURCE is a rootfs directory (archived on the fly) or a
// tar file (sent as is; the daemon also takes gzip/xz/bzip2). The image is labelled as ours.
Status ImportImage(EngineClient& client, const std::string& source, const std::string& name);

}  // namespace agentbox::docker
