#include "sys/memfd.h"

#include <sys/mman.h>
#include <unistd.h>

#include <string>

namespace agentbox {

StatusOr<UniqueFd> MemfdWithContents(const char* name, std::string_view data) {
  UniqueFd fd(::memfd_create(name, MFD_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("memfd_create");
  for (std::string_view rest = data; !rest.empty();) {
    ssize_t n = ::write(fd.get(), rest.data(), rest.size());
    if (n <= 0) return ErrnoStatus(std::string("write ") + name);
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (::lseek(fd.get(), 0, SEEK_SET) < 0) return ErrnoStatus(std::string("lseek ") + name);
  return fd;
}

}  // namespace agentbox
