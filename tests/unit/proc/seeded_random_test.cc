// The stream of policy key random_seed (proc/seeded_random.h): SplitMix64's published outputs,
// little-endian bytes, the same however the reads are split.
#include "proc/seeded_random.h"

#include <gtest/gtest.h>

#include <vector>

namespace agentbox {
namespace {

std::vector<unsigned char> Bytes(uint64_t seed, std::vector<size_t> reads) {
  SeededRandom stream(seed);
  std::vector<unsigned char> out;
  for (size_t n : reads) {
    std::vector<unsigned char> part(n);
    stream.Fill(part.data(), n);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// SplitMix64 from state 0 gives 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4 first (the reference
// implementation's, Vigna's splitmix64.c).
TEST(SeededRandomTest, IsSplitMix64LittleEndian) {
  EXPECT_EQ(Bytes(0, {16}),
            (std::vector<unsigned char>{0xaf, 0xcd, 0x1d, 0x7b, 0x39, 0xa8, 0x20, 0xe2, 0xf4, 0x65,
                                        0xb9, 0xa1, 0x6a, 0x9e, 0x78, 0x6e}));
}

TEST(SeededRandomTest, SplitReadsReadTheSameStream) {
  const std::vector<unsigned char> whole = Bytes(42, {100});
  EXPECT_EQ(Bytes(42, {3, 5, 1, 0, 91}), whole);
  EXPECT_EQ(Bytes(42, {1, 1, 1, 97}), whole);
  EXPECT_EQ(Bytes(42, {100}), whole) << "the same seed, the same bytes";
}

TEST(SeededRandomTest, AnotherSeedAnotherStream) {
  EXPECT_NE(Bytes(42, {32}), Bytes(43, {32}));
  EXPECT_NE(Bytes(0, {32}), Bytes(UINT64_MAX, {32}));
}

// Each seeded open of /dev/urandom reads its own stream: fixed values (a change of them changes
// every recorded session's bytes), one per open number, one per seed, none equal to the seed.
TEST(SeededRandomTest, UrandomOpenSeedsAreFixedAndDistinct) {
  EXPECT_EQ(UrandomOpenSeed(0, 1), 0x485d4df36714bf6cULL);
  EXPECT_EQ(UrandomOpenSeed(42, 1), 0x8abf9d67a3bce181ULL);
  EXPECT_EQ(UrandomOpenSeed(42, 2), 0xb462739c57ec69c1ULL);
  EXPECT_NE(UrandomOpenSeed(42, 1), UrandomOpenSeed(43, 1));
  EXPECT_NE(UrandomOpenSeed(42, 1), 42u) << "not the getrandom stream's seed";
  EXPECT_NE(Bytes(UrandomOpenSeed(42, 1), {32}), Bytes(42, {32}));
}

}  // namespace
}  // namespace agentbox
