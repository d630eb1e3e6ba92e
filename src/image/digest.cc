#include "image/digest.h"

namespace agentbox::image {

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
