#include "image/digest.h"

namespace agentbox::image {

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
  h.Update(data.data(), data.size());
  return h.Digest();
}

Status CheckDigest(std::string_view digest) {
  constexpr std::string_view kPrefix = "sha256:";
  bool ok = digest.size() == kPrefix.size() + 64 && digest.substr(0, kPrefix.size()) == kPrefix;
  for (size_t i = kPrefix.size(); ok && i < digest.size(); ++i) {
    char c = digest[i];
    ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }
  if (ok) return OkStatus();
  return InvalidArgument("not a sha256 digest: \"" + std::string(digest.substr(0, 80)) + "\"");
}

std::string DigestHex(std::string_view digest) {
  return std::string(digest.substr(digest.find(':') + 1));
}

}  // namespace agentbox::image
