#include "spec/host_pattern.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

std::string Canonical(const std::string& text) {
  auto p = ParseHostPattern(text);
  return p.ok() ? FormatHostPattern(*p) : "error: " + p.status().message();
}

TEST(HostPatternTest, EveryFormReadsBackCanonically) {
  EXPECT_EQ(Canonical("PyPI.org"), "pypi.org");
  EXPECT_EQ(Canonical("pypi.org."), "pypi.org");
  EXPECT_EQ(Canonical("index.internal:8080"), "index.internal:8080");
  EXPECT_EQ(Canonical("*.Example.com"), "*.example.com");
  EXPECT_EQ(Canonical("*.example.com:443"), "*.example.com:443");
  EXPECT_EQ(Canonical("192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(Canonical("192.0.2.7/32"), "192.0.2.7");
  EXPECT_EQ(Canonical("198.51.100.0/24:443"), "198.51.100.0/24:443");
  EXPECT_EQ(Canonical("[2001:DB8::1]:443"), "[2001:db8::1]:443");
  EXPECT_EQ(Canonical("2001:db8::/32"), "[2001:db8::/32]");
  EXPECT_EQ(Canonical("[2001:db8::]/32:443"), "[2001:db8::/32]:443");
  EXPECT_EQ(Canonical("[::ffff:127.0.0.1]"), "127.0.0.1");
  EXPECT_EQ(Canonical("127.0.0.1:3141"), "127.0.0.1:3141");
}

TEST(HostPatternTest, RefusesWhatIsNotOneOfTheForms) {
  for (const char* bad : {"",
                          "*",
                          "*.com",
                          "foo*.example.com",
                          "a.*.example.com",
                          "exa mple.com",
                          "host:0",
                          "host:65536",
                          "host:",
                          "host:80:80",
                          "010.0.0.1",
                          "1.2.3",
                          "1.2.3.4/33",
                          "192.0.2.1/24",
                          "[192.0.2.1]",
                          "[::1",
                          "::1:80:x",
                          "-",
                          "a..b",
                          "0x7f.0.0.1",
                          "2130706433",
                          "http://pypi.org"}) {
    EXPECT_FALSE(ParseHostPattern(bad).ok()) << bad;
  }
}

TEST(HostPatternTest, IpAddressesParseAndFormat) {
  auto v6 = ParseIpAddress("2001:db8:0:0:1:0:0:1");
  ASSERT_TRUE(v6);
  EXPECT_EQ(FormatIpAddress(*v6), "2001:db8::1:0:0:1");
  auto mapped = ParseIpAddress("::ffff:169.254.169.254");
  ASSERT_TRUE(mapped);
  EXPECT_EQ(FormatIpAddress(mapped->Canonical()), "169.254.169.254");
  EXPECT_FALSE(ParseIpAddress("1::2::3"));
  EXPECT_FALSE(ParseIpAddress("1:2:3:4:5:6:7:8:9"));
  EXPECT_FALSE(ParseIpAddress("256.0.0.1"));
}

TEST(HostPatternTest, NamesAreNormalizedStrictly) {
  EXPECT_EQ(NormalizeHostName("Files.PythonHosted.org."), "files.pythonhosted.org");
  EXPECT_FALSE(NormalizeHostName("127.0.0.1"));
  EXPECT_FALSE(NormalizeHostName("1.2.3"));
  EXPECT_FALSE(NormalizeHostName("evil.com\r\nX: y"));
  EXPECT_FALSE(NormalizeHostName(std::string(64, 'a') + ".com"));
}

TEST(HostPatternTest, WithinIsWhatACeilingAllows) {
  auto within = [](const char* inner, const char* outer) {
    return PatternWithin(*ParseHostPattern(inner), *ParseHostPattern(outer));
  };
  EXPECT_TRUE(within("pypi.org", "pypi.org"));
  EXPECT_TRUE(within("pypi.org:443", "pypi.org"));
  EXPECT_FALSE(within("pypi.org", "pypi.org:443"));
  EXPECT_TRUE(within("a.example.com", "*.example.com"));
  EXPECT_TRUE(within("*.a.example.com", "*.example.com"));
  EXPECT_TRUE(within("*.example.com", "*.example.com"));
  EXPECT_FALSE(within("example.com", "*.example.com"));
  EXPECT_FALSE(within("*.example.com", "a.example.com"));
  EXPECT_TRUE(within("198.51.100.7", "198.51.100.0/24"));
  EXPECT_TRUE(within("198.51.100.128/25", "198.51.100.0/24"));
  EXPECT_FALSE(within("198.51.0.0/16", "198.51.100.0/24"));
  EXPECT_FALSE(within("pypi.org", "198.51.100.0/24"));
}

}  // namespace
}  // namespace agentbox
