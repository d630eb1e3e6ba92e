// Who a container's processes are on the host. Never an account's uid (docs/security.md,
// "The docker backend"): without userns-remap the container runs as kSandboxHostUserId, an id
// no account has (kDockerHostUserId), and the agent maps it to uid 1000 in a user namespace of
// its own; a daemon
// with userns-remap maps the container's 1000 to a subordinate id itself.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "docker/engine_client.h"
#include "spec/sandbox_spec.h"

namespace agentbox::docker {

// The host id of a container's processes without userns-remap: Docker takes ids below 2^31
// only, so not the native backend's 3900001000; still above the subordinate ranges useradd
// hands out (up to 600100000) and no account's.
inline constexpr uint32_t kDockerHostUserId = 2'100'001'000u;

struct ContainerIds {
  std::string user;    // the container's "User": "3900001000:3900001000", or "1000:1000"
  uid_t host_uid = 0;  // what the sandbox's uid 1000 is on the host
  gid_t host_gid = 0;
  bool userns_remap = false;
};

// From the daemon's /info and, under userns-remap, the subordinate ranges of its remap user
// (/etc/subuid, /etc/subgid: "dockremap", the user `"userns-remap": "default"` makes).
StatusOr<ContainerIds> ContainerIdsFor(const nlohmann::json& info, const std::string& subuid,
                                       const std::string& subgid);
StatusOr<ContainerIds> AskContainerIds(EngineClient& client);

// The ids for a sandbox whose user inside is `user` (an image's, policy/image_user.h): without
// userns-remap the same (the agent maps the container's id to `user`); under userns-remap the
// container runs as `user` itself, on the host that many ids into the remap range.
ContainerIds WithSandboxUser(const ContainerIds& ids, const SandboxUser& user);

}  // namespace agentbox::docker
