#include "base/sha256.h"

#include <cstdint>

namespace agentbox {

std::string Sha256::Digest() {
  uint8_t raw[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx_, sizeof(raw), raw);
  static const char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (uint8_t b : raw) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string Sha256Of(std::string_view data) {
  Sha256 h;
  h.Update(data);
  return h.Digest();
}

}  // namespace agentbox
