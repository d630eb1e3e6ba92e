#include "sys/random_id.h"

#include <sys/random.h>

#include <cstdlib>

namespace agentbox {

std::string RandomHexId() {
  unsigned char bytes[16] = {};
  if (::getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes)) std::abort();
  std::string id;
  for (unsigned char b : bytes) {
    id += "0123456789abcdef"[b >> 4];
    id += "0123456789abcdef"[b & 15];
  }
  return id;
}

}  // namespace agentbox
