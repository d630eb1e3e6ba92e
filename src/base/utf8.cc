#include "base/utf8.h"

#include <cstddef>
#include <cstdint>

namespace agentbox {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool IsContinuation(uint8_t b) { return (b & 0xC0) == 0x80; }

// Length of the well-formed sequence starting at s[i], or 0 when s[i] starts none. The allowed
// range of the second byte is what excludes overlongs, surrogates and values past U+10FFFF
// (Unicode Table 3-7, "Well-Formed UTF-8 Byte Sequences").
size_t ValidSequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) return 1;
  size_t len = 0;
  uint8_t lo = 0x80;
  uint8_t hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    if (lead == 0xE0) lo = 0xA0;  // overlong below U+0800
    if (lead == 0xED) hi = 0x9F;  // surrogates U+D800..U+DFFF
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    if (lead == 0xF0) lo = 0x90;  // overlong below U+10000
    if (lead == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // stray continuation byte, C0/C1 overlong lead, or F5..FF
  }
  if (s.size() - i < len) return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (!IsContinuation(byte(k))) return 0;
  }
  return len;
}

}  // namespace

std::string SanitizeUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    const size_t len = ValidSequenceLength(bytes, i);
    if (len == 0) {
      out.append(kReplacement);
      ++i;
    } else {
      out.append(bytes.substr(i, len));
      i += len;
    }
  }
  return out;
}

bool IsValidUtf8(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    const size_t len = ValidSequenceLength(bytes, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

namespace {
bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

size_t Utf8Length(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += IsContinuation(c) ? 0 : 1;
  return n;
}

size_t Utf8PrefixBytes(std::string_view text, size_t chars) {
  size_t i = 0;
  for (size_t seen = 0; i < text.size(); ++i) {
    if (!IsContinuation(text[i]) && seen++ == chars) break;
  }
  return i;
}

size_t Utf8SuffixStart(std::string_view text, size_t chars) {
  if (chars == 0) return text.size();
  size_t i = text.size();
  for (size_t seen = 0; i > 0;) {
    --i;
    if (!IsContinuation(text[i]) && ++seen == chars) return i;
  }
  return 0;
}

}  // namespace agentbox
