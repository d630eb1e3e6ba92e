// SHA-256 as "sha256:<64 lowercase hex>": image digests, the session log's output and policy
// digests, workspace digests.
//
// Pure apart from nettle's SHA-256 (Debian's nettle-dev, linked statically).
#pragma once

#include <nettle/sha2.h>

#include <string>
#include <string_view>

namespace agentbox {

// A streaming SHA-256.
class Sha256 {
 public:
  Sha256() { sha256_init(&ctx_); }
  void Update(const void* data, size_t size) {
    sha256_update(&ctx_, size, static_cast<const uint8_t*>(data));
  }
  void Update(std::string_view data) { Update(data.data(), data.size()); }
  // "sha256:<hex>" of everything given so far (the hasher starts over afterwards).
  std::string Digest();

 private:
  struct sha256_ctx ctx_;
};

std::string Sha256Of(std::string_view data);

}  // namespace agentbox
