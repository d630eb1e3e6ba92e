// ImageRoot: a sandbox's root made of an image of the store (`--image`), parent side.
//
// Resolves the reference in the store (image/image_store.h), takes the image's shared lock
// (`image rm` refuses while it is held), and mounts the image's layers as one overlayfs with
// lower layers only: read-only by construction, nosuid, nodev, detached (fsmount), with
// agentbox's scaffold on top (empty /proc, /dev, /sys, /tmp, /workspace, so every mount point
// exists whatever the image holds, and /etc/resolv.conf naming the DNS catcher). The child attaches
// it over its new root (MountKind::kRootTree) and mounts /tmp, /dev, /proc and /workspace on it as
// on any root. Mounted by the host's root, so overlay reads the layers with its credentials
// (whiteouts, trusted.overlay.opaque) while the sandbox's processes see the owners mapped at unpack
// (image/layer_unpack.h).
#pragma once

#include <string>

#include "base/status.h"
#include "image/image_store.h"
#include "spec/sandbox_spec.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct ImageRoot {
  image::ImageRecord record;
  image::StoreLock lock;  // the image's shared lock: held while this object lives
  UniqueFd overlay;       // the detached mount
};

// kNotFound when the store has no such image (the message says how to get it), kUnavailable
// when the kernel cannot mount it (no overlayfs; too many layers for a kernel before 6.8).
StatusOr<ImageRoot> PrepareImageRoot(const std::string& state_root, const std::string& ref);

// Sets spec->user from the image's User, names looked up in the image's own /etc/passwd and
// /etc/group (policy/image_user.h); kInvalidArgument (exit 125) for a user it cannot give.
Status ApplyImageUser(const ImageRoot& root, SandboxSpec* spec);

}  // namespace agentbox
