// The layer unpacker (src/image/layer_unpack.*, tar_stream.*): any bytes as a layer blob (tar,
// gzip, zstd, xz, bzip2), unpacked into a fresh directory. Never a crash or a hang; a refusal
// is a Status; whatever it wrote stays beneath the directory (checked: nothing appears beside it).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "fuzz_util.h"
#include "image/layer_unpack.h"
#include "sys/file_util.h"

using namespace agentbox;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string base = [] {
    char tmpl[] = "/tmp/ab-fuzz-unpack-XXXXXX";
    return std::string(::mkdtemp(tmpl));
  }();
  std::string dest = base + "/root";
  ::mkdir(dest.c_str(), 0755);
  int fd = ::memfd_create("layer", MFD_CLOEXEC);
  if (fd < 0 || ::write(fd, data, size) != static_cast<ssize_t>(size) ||
      ::lseek(fd, 0, SEEK_SET) != 0) {
    if (fd >= 0) ::close(fd);
    return 0;
  }
  image::UnpackLimits limits;
  limits.max_bytes = 8 << 20;
  limits.max_entries = 2000;
  auto r = image::UnpackLayer(fd, dest, limits);
  ::close(fd);
  if (!r.ok()) {
    StatusCode c = r.status().code();
    FUZZ_CHECK(c != StatusCode::kOk, "an error without a code");
  }
  auto entries = ListDir(base);
  FUZZ_CHECK(entries.ok() && entries->size() == 1, "something was written beside the layer's root");
  RemoveTree(dest);
  return 0;
}
