// The byte stream of policy key random_seed: what getrandom(2) returns in a seeded sandbox.
//
// NOT CRYPTOGRAPHIC. SplitMix64 (Steele, Lea, Flood 2014; the generator java.util.SplittableRandom
// and xoshiro's authors use to seed theirs): state += 0x9e3779b97f4a7c15, then two
// xor-shift-multiply rounds; each 64-bit output gives 8 bytes, least significant first. Anyone
// who knows the seed, or has seen 8 bytes of the stream, knows every byte of it: a seeded
// sandbox must never make keys or secrets (docs/security.md).
//
// A byte stream, not a word stream: calls of 3 and 5 bytes read the same 8 bytes as one call of
// 8, so how a program splits its reads does not change what it gets.
#pragma once

#include <cstddef>
#include <cstdint>

namespace agentbox {

// The seed of the stream the `open_number`-th seeded open of /dev/urandom or /dev/random reads
// (from 1; proc/urandom_watch.h): SplitMix64's output mixing applied to the seed and the number,
// so each open reads its own stream, none of them the getrandom stream of the same seed.
uint64_t UrandomOpenSeed(uint64_t seed, uint64_t open_number);

class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}

  // The next `n` bytes of the stream.
  void Fill(unsigned char* out, size_t n);

 private:
  uint64_t NextWord();

  uint64_t state_;
  uint64_t word_ = 0;
  unsigned left_ = 0;  // bytes of word_ not yet given, taken from its low end
};

}  // namespace agentbox
