#include "base/base64.h"

#include <nettle/base64.h>

namespace agentbox {

std::string Base64Encode(std::string_view bytes) {
  std::string out(BASE64_ENCODE_RAW_LENGTH(bytes.size()), '\0');
  base64_encode_raw(out.data(), bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  base64_decode_ctx ctx;
  base64_decode_init(&ctx);
  std::string raw(BASE64_DECODE_LENGTH(text.size()), '\0');
  size_t raw_size = raw.size();
  if (!base64_decode_update(&ctx, &raw_size, reinterpret_cast<uint8_t*>(raw.data()), text.size(),
                            text.data()) ||
      !base64_decode_final(&ctx)) {
    return std::nullopt;
  }
  raw.resize(raw_size);
  if (Base64Encode(raw) != text) return std::nullopt;
  return raw;
}

}  // namespace agentbox
