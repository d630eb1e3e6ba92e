#include "proc/seeded_random.h"

namespace agentbox {

uint64_t SeededRandom::NextWord() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void SeededRandom::Fill(unsigned char* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (left_ == 0) {
      word_ = NextWord();
      left_ = 8;
    }
    out[i] = static_cast<unsigned char>(word_);
    word_ >>= 8;
    --left_;
  }
}

}  // namespace agentbox
