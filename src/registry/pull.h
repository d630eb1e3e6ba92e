// Pull: one image from a registry into the store — the manifest (an index resolved for the
// platform asked for), the config, and only the layers the store lacks.
//
// Each missing layer is unpacked by image::ImportImage while it downloads (digest and size
// checked over the whole blob before the layer is committed, its content checked again against
// the config's diff_id); the image and its name are recorded only when every layer is in.
#pragma once

#include <string>

#include "base/status.h"
#include "image/image_store.h"
#include "registry/registry_client.h"

namespace agentbox::registry {

struct PullRequest {
  std::string ref;  // as the user typed it
  image::Platform platform;
  RegistryOptions registry;
  image::UnpackLimits limits;
};

StatusOr<image::ImageRecord> Pull(const image::ImageStore& store, const PullRequest& request);

}  // namespace agentbox::registry
