// The sandbox user of an image on the docker daemon: its config's User, resolved by the same rule
// as on the native backend (policy/image_user.h), names looked up in the image's own /etc/passwd
// and /etc/group.
//
// A User that names nobody by name (empty, "root", "1001", "1001:1001") needs nothing but the
// image's config (GET /images/NAME/json). A name needs the image's files: they are read from a
// container created from the image and never started (GET .../archive, the daemon's own view of
// the image's layers, whiteouts included), which is removed before this returns.
#pragma once

#include <string>

#include "base/status.h"
#include "docker/engine_client.h"
#include "spec/sandbox_spec.h"

namespace agentbox::docker {

// kInvalidArgument (exit 125) for a user the image cannot give (an unknown name, an id past
// 65534); kUnavailable when the daemon cannot answer. `scratch_name`: the name of the container
// made to read the files, unique to this create.
StatusOr<SandboxUser> ResolveDaemonImageUser(EngineClient& client, const std::string& image,
                                             const std::string& scratch_name);

}  // namespace agentbox::docker
