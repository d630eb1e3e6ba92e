// Helpers shared by the libFuzzer targets of tests/fuzz.
//
// A fuzzer fails in three ways: a sanitizer report (memory error, undefined behaviour, leak), an
// escaping exception (std::terminate aborts), or FUZZ_CHECK, which states a property every input
// must keep (round trips, "resolved beneath the workspace") and aborts with its text when broken.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#define FUZZ_CHECK(cond, what)                                                                \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s: %s\n", __FILE__, __LINE__, #cond, \
                   std::string(what).c_str());                                                \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace agentbox::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits at `sep`: "a\0b" -> {"a", "b"}; an empty input gives no pieces.
inline std::vector<std::string> Split(std::string_view text, char sep) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  size_t start = 0;
  for (;;) {
    size_t end = text.find(sep, start);
    out.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

// Takes bytes off the front of the input, for fuzzers that build structured values.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : rest_(AsText(data, size)) {}
  bool empty() const { return rest_.empty(); }
  uint8_t Byte() {
    if (rest_.empty()) return 0;
    auto b = static_cast<uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return b;
  }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | Byte();
    return v;
  }
  // Bytes up to the next NUL (or the end).
  std::string Text() {
    size_t end = rest_.find('\0');
    std::string out(rest_.substr(0, end));
    rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 1);
    return out;
  }
  std::string_view Rest() const { return rest_; }

 private:
  std::string_view rest_;
};

}  // namespace agentbox::fuzz
