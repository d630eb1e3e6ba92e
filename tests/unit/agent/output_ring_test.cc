#include "agent/output_ring.h"

#include <gtest/gtest.h>

#include <string>

namespace agentbox {
namespace {

std::string ReadAll(const OutputRing& ring, uint64_t from, uint64_t* next = nullptr) {
  std::string out;
  uint64_t end = ring.Read(from, UINT64_MAX, [&](OutputStream s, std::string_view d) {
    out += s == OutputStream::kStdout ? "" : "!";
    out.append(d);
  });
  if (next) *next = end;
  return out;
}

TEST(OutputRing, KeepsEverythingUnderItsCapacityInOrder) {
  OutputRing ring(1024);
  ring.Append(OutputStream::kStdout, "a");
  ring.Append(OutputStream::kStdout, "b");
  ring.Append(OutputStream::kStderr, "c");
  EXPECT_EQ(ring.end(), 3u);
  EXPECT_EQ(ring.start(), 0u);
  EXPECT_EQ(ReadAll(ring, 0), "ab!c");
  EXPECT_EQ(ReadAll(ring, 1), "b!c");
  uint64_t next = 0;
  EXPECT_EQ(ReadAll(ring, 3, &next), "");
  EXPECT_EQ(next, 3u);
}

TEST(OutputRing, KeepsTheLastBytesOfAFloodWithinItsCapacity) {
  OutputRing ring(1024);
  std::string all;
  for (int i = 0; i < 2000; ++i) {
    std::string line = "line " + std::to_string(i) + "\n";
    all += line;
    ring.Append(i % 7 == 0 ? OutputStream::kStderr : OutputStream::kStdout, line);
  }
  std::string kept;
  ring.Read(0, UINT64_MAX, [&](OutputStream, std::string_view d) { kept.append(d); });
  EXPECT_LE(kept.size(), 1024u);
  EXPECT_GT(kept.size(), 0u);
  EXPECT_EQ(ring.end(), all.size());
  EXPECT_EQ(ring.start() + kept.size(), ring.end());
  EXPECT_EQ(all.substr(all.size() - kept.size()), kept);
}

TEST(OutputRing, SkipsMostOfOneHugeAppend) {
  OutputRing ring(100);
  std::string big(10000, 'x');
  big += "END";
  ring.Append(OutputStream::kStdout, big);
  std::string kept = ReadAll(ring, 0);
  EXPECT_LE(kept.size(), 100u);
  EXPECT_EQ(kept.substr(kept.size() - 3), "END");
  EXPECT_EQ(ring.start() + kept.size(), ring.end());
}

// Pipe reads larger than the ring, after small ones: offsets stay exact (a reader at the end is
// at end(), never short of it).
TEST(OutputRing, OffsetsStayExactAcrossSkippedBytes) {
  OutputRing ring(1024);
  std::string all;
  for (int i = 0; i < 20; ++i) {
    std::string piece = std::string(i % 2 ? 4096 : 10, static_cast<char>('a' + i));
    all += piece;
    ring.Append(OutputStream::kStdout, piece);
    uint64_t next = 0;
    std::string kept = ReadAll(ring, 0, &next);
    ASSERT_EQ(next, ring.end());
    ASSERT_LE(kept.size(), 1024u);
    ASSERT_EQ(ring.start() + kept.size(), ring.end());
    ASSERT_EQ(all.substr(all.size() - kept.size()), kept);
  }
}

TEST(OutputRing, ReadIsBoundedAndResumable) {
  OutputRing ring(1 << 20);
  ring.Append(OutputStream::kStdout, std::string(1000, 'a'));
  std::string got;
  uint64_t next = ring.Read(0, 300, [&](OutputStream, std::string_view d) { got.append(d); });
  EXPECT_EQ(next, 300u);
  EXPECT_EQ(got.size(), 300u);
}

}  // namespace
}  // namespace agentbox
