// Host side: lists what the sandbox's root is made of, for BuildMountPlan.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "policy/mount_plan.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

// The MountPlanInput for spec: the host's allowlisted system dirs, every top-level entry of
// spec.rootfs, or (spec.image_given) an image's root, which native/image_root.h prepares.
// Fails with kNotFound / kInvalidArgument for a bad --rootfs: not a directory, the host's /, or
// agentbox's state directory `state_root` (or inside it, or containing it); kInvalidArgument
// for --rootfs and --image together.
StatusOr<MountPlanInput> DescribeRoot(const SandboxSpec& spec, const std::string& state_root);

}  // namespace agentbox
