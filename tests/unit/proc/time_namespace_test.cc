// clock_start's offsets: the text written to /proc/self/timens_offsets, in the kernel's form
// (seconds may be negative, nanoseconds always in [0, 1e9)).
#include "proc/time_namespace.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

constexpr int64_t kSec = 1'000'000'000;

TEST(TimeNamespaceTest, OffsetsMakeTheClocksReadTheStart) {
  // Up 100.25 s (monotonic) and 130.25 s (boottime, with 30 s of suspend); asked 10 s.
  EXPECT_EQ(FormatTimeOffsets(10 * kSec, 100 * kSec + kSec / 4, 130 * kSec + kSec / 4),
            "monotonic -91 750000000\nboottime -121 750000000\n");
}

TEST(TimeNamespaceTest, APositiveOffsetAndAWholeSecond) {
  EXPECT_EQ(FormatTimeOffsets(3 * 86400 * kSec, 5 * kSec, 5 * kSec + 1),
            "monotonic 259195 0\nboottime 259194 999999999\n");
  EXPECT_EQ(FormatTimeOffsets(0, 0, 0), "monotonic 0 0\nboottime 0 0\n");
}

}  // namespace
}  // namespace agentbox
