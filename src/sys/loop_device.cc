#include "sys/loop_device.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace agentbox {
namespace {

constexpr int kMaxAttempts = 16;  // another process may take the device we were given

int ConfigureLoop(int loop_fd, int image_fd, uint32_t flags) {
  struct loop_config config;
  std::memset(&config, 0, sizeof(config));
  config.fd = static_cast<uint32_t>(image_fd);
  config.info.lo_flags = flags;
  return ::ioctl(loop_fd, LOOP_CONFIGURE, &config);
}

}  // namespace

StatusOr<LoopDevice> AttachLoopDevice(const std::string& image_path) {
  UniqueFd image(::open(image_path.c_str(), O_RDWR | O_CLOEXEC));
  if (!image.valid()) return ErrnoStatus("open " + image_path);
  UniqueFd control(::open("/dev/loop-control", O_RDWR | O_CLOEXEC));
  if (!control.valid()) {
    return ErrnoStatus(
        "open /dev/loop-control (agentbox's workspace filesystem needs loop "
        "devices)");
  }
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    int number = ::ioctl(control.get(), LOOP_CTL_GET_FREE);
    if (number < 0) return ErrnoStatus("find a free loop device");
    LoopDevice dev;
    dev.path = "/dev/loop" + std::to_string(number);
    dev.fd = UniqueFd(::open(dev.path.c_str(), O_RDWR | O_CLOEXEC));
    if (!dev.fd.valid()) return ErrnoStatus("open " + dev.path);
    const uint32_t base = LO_FLAGS_AUTOCLEAR;
    if (ConfigureLoop(dev.fd.get(), image.get(), base | LO_FLAGS_DIRECT_IO) == 0 ||
        (errno != EBUSY && ConfigureLoop(dev.fd.get(), image.get(), base) == 0)) {
      return dev;
    }
    if (errno != EBUSY) return ErrnoStatus("attach " + image_path + " to " + dev.path);
  }
  return Unavailable("no free loop device for " + image_path);
}

}  // namespace agentbox
