#include "proc/seeded_random.h"

namespace agentbox {
namespace {

// SplitMix64's output function (its two xor-shift-multiply rounds).
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t UrandomOpenSeed(uint64_t seed, uint64_t open_number) {
  constexpr uint64_t kUrandomTag = 0x75726e64ULL;  // "urnd": apart from getrandom's stream
  return Mix(seed ^ Mix(open_number * 0x9e3779b97f4a7c15ULL + kUrandomTag));
}

uint64_t SeededRandom::NextWord() { return Mix(state_ += 0x9e3779b97f4a7c15ULL); }

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
