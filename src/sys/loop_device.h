// A loop device over an image file, the block device behind a filesystem of agentbox's own.
//
// Host side. The device is configured with LO_FLAGS_AUTOCLEAR: once the filesystem on it is
// mounted, closing the returned fd hands its lifetime to the mount, and unmounting frees the
// device. Nothing needs to remember it, so nothing can leak it.
#pragma once

#include <string>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct LoopDevice {
  std::string path;  // /dev/loopN
  UniqueFd fd;       // keeps the device configured until the mount holds it
};

// Attaches image_path (read-write) to a free loop device. Direct I/O is asked for (the image's
// pages are then cached once, in the filesystem on the device, not twice) and dropped when the
// host filesystem cannot do it.
StatusOr<LoopDevice> AttachLoopDevice(const std::string& image_path);

}  // namespace agentbox
