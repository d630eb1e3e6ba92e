#include "spec/units.h"

#include <gtest/gtest.h>

#include <cmath>

#include "spec/sandbox_spec.h"

namespace agentbox {
namespace {

uint64_t SizeOk(const char* text) {
  StatusOr<uint64_t> v = ParseSize(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().message();
  return v.ok() ? *v : 0;
}

double DurationOk(const char* text) {
  StatusOr<double> v = ParseDuration(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().message();
  return v.ok() ? *v : 0;
}

TEST(ParseSizeTest, PlainBytes) {
  EXPECT_EQ(SizeOk("0"), 0u);
  EXPECT_EQ(SizeOk("4096"), 4096u);
  EXPECT_EQ(SizeOk("100B"), 100u);
  EXPECT_EQ(SizeOk("18446744073709551615"), 18446744073709551615u);
}

TEST(ParseSizeTest, BinaryMultiplesAnyCase) {
  EXPECT_EQ(SizeOk("1K"), 1024u);
  EXPECT_EQ(SizeOk("512M"), 512 * kMiB);
  EXPECT_EQ(SizeOk("512m"), 512 * kMiB);
  EXPECT_EQ(SizeOk("2G"), 2 * kGiB);
  EXPECT_EQ(SizeOk("1T"), 1024 * kGiB);
  EXPECT_EQ(SizeOk("64KB"), 64 * kKiB);
  EXPECT_EQ(SizeOk("64kib"), 64 * kKiB);
  EXPECT_EQ(SizeOk("64KiB"), 64 * kKiB);
  EXPECT_EQ(SizeOk("3gb"), 3 * kGiB);
}

TEST(ParseSizeTest, FractionsWithUnitRoundDown) {
  EXPECT_EQ(SizeOk("1.5G"), 1536 * kMiB);
  EXPECT_EQ(SizeOk("0.5K"), 512u);
  EXPECT_EQ(SizeOk("1.0001K"), 1024u);
  EXPECT_EQ(SizeOk(".5M"), 512 * kKiB);
  EXPECT_EQ(SizeOk("2.M"), 2 * kMiB);
}

TEST(ParseSizeTest, Rejects) {
  for (const char* bad : {"",     "M",  "-1",  "-1M", "+5",  " 5",    "5 ", "1e9", "inf",  "nan",
                          "0x10", "5X", "5MM", "5iB", "5Mi", "1.2.3", ".",  "1.5", "1.5B", "5 M"}) {
    StatusOr<uint64_t> v = ParseSize(bad);
    EXPECT_FALSE(v.ok()) << "accepted \"" << bad << "\"";
    if (!v.ok()) {
      EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(ParseSizeTest, RejectsOverflow) {
  EXPECT_FALSE(ParseSize("18446744073709551616").ok());
  EXPECT_FALSE(ParseSize("16777216T").ok());
  EXPECT_TRUE(ParseSize("16777215T").ok());
  EXPECT_FALSE(ParseSize("16777216.5T").ok());
  EXPECT_TRUE(ParseSize("16777215.9999999T").ok());
  EXPECT_FALSE(ParseSize("16777215.99999999999999999T").ok());  // fraction rounds to 1T
}

TEST(ParseSizeTest, MessageQuotesInput) {
  EXPECT_EQ(ParseSize("abc").status().message(),
            "expected a size like \"512M\" or a number of bytes, got \"abc\"");
}

TEST(ParseDurationTest, SecondsAndUnits) {
  EXPECT_DOUBLE_EQ(DurationOk("60"), 60);
  EXPECT_DOUBLE_EQ(DurationOk("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(DurationOk("0.001"), 0.001);
  EXPECT_DOUBLE_EQ(DurationOk("30s"), 30);
  EXPECT_DOUBLE_EQ(DurationOk("250ms"), 0.25);
  EXPECT_DOUBLE_EQ(DurationOk("5m"), 300);
  EXPECT_DOUBLE_EQ(DurationOk("2h"), 7200);
  EXPECT_DOUBLE_EQ(DurationOk("1d"), 86400);
  EXPECT_DOUBLE_EQ(DurationOk("1.5M"), 90);
}

TEST(ParseDurationTest, RejectsMeaningless) {
  for (const char* bad : {"", "0", "0.0", "0s", "-1", "-0.5", "nan", "inf", "infinity", "1e3", "5x",
                          "s", " 5", "1..2", "5 s"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << "accepted \"" << bad << "\"";
  }
}

TEST(ParsePositiveDecimalTest, Works) {
  EXPECT_DOUBLE_EQ(*ParsePositiveDecimal("0.5"), 0.5);
  EXPECT_DOUBLE_EQ(*ParsePositiveDecimal("2"), 2);
  for (const char* bad : {"0", "-1", "nan", "inf", "1e2", "", "2x", "0.0"}) {
    EXPECT_FALSE(ParsePositiveDecimal(bad).ok()) << "accepted \"" << bad << "\"";
  }
}

TEST(ParseCountTest, Works) {
  EXPECT_EQ(*ParseCount("0"), 0u);
  EXPECT_EQ(*ParseCount("256"), 256u);
  for (const char* bad : {"", "-1", "+1", "1.5", "1K", " 1", "99999999999999999999"}) {
    EXPECT_FALSE(ParseCount(bad).ok()) << "accepted \"" << bad << "\"";
  }
}

TEST(FormatTest, SizeRoundTrips) {
  EXPECT_EQ(FormatSize(512 * kMiB), "512M");
  EXPECT_EQ(FormatSize(kGiB), "1G");
  EXPECT_EQ(FormatSize(1536), "1536");
  EXPECT_EQ(FormatSize(0), "0");
  EXPECT_EQ(FormatSize(1024 * kGiB), "1T");
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, 3 * kKiB, 5 * kMiB + 1, 7 * kGiB}) {
    EXPECT_EQ(*ParseSize(FormatSize(v)), v);
  }
}

TEST(FormatTest, Seconds) {
  EXPECT_EQ(FormatSeconds(60), "60");
  EXPECT_EQ(FormatSeconds(1.5), "1.5");
  EXPECT_EQ(FormatSeconds(0.1), "0.1");
}

}  // namespace
}  // namespace agentbox
