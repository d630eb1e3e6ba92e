// What an image's config changes in a sandbox's spec: its Env and WorkingDir, under the policy.
//
// Pure. The image's Env comes first and the policy's env (file, flags, API body) replaces a
// variable of the same name; both go over the clean environment (PATH, HOME, LANG), so an image
// that sets PATH gets its PATH. The image's WorkingDir becomes the working directory unless the
// policy set `cwd`. The image's User is resolved against the image's files where the root is
// mounted (native/image_root.h ApplyImageUser, policy/image_user.h).
#pragma once

#include "image/oci_json.h"
#include "spec/sandbox_spec.h"

namespace agentbox::image {

void ApplyImageConfig(const ImageConfig& config, SandboxSpec* spec);

}  // namespace agentbox::image
