#include "policy/egress_rules.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

IpAddress Ip(const char* text) { return *ParseIpAddress(text); }

EgressRules Rules(std::vector<std::string> patterns) {
  return *EgressRules::FromPatterns(patterns);
}

TEST(EgressRulesTest, NamesMatchExactlyOrBelowAWildcard) {
  EgressRules r = Rules({"pypi.org", "*.example.com:443"});
  EXPECT_TRUE(r.AllowsName("pypi.org", 443));
  EXPECT_TRUE(r.AllowsName("pypi.org", 8080));
  EXPECT_FALSE(r.AllowsName("evil-pypi.org", 443));
  EXPECT_FALSE(r.AllowsName("pypi.org.evil.com", 443));
  EXPECT_TRUE(r.AllowsName("a.example.com", 443));
  EXPECT_TRUE(r.AllowsName("a.b.example.com", 443));
  EXPECT_FALSE(r.AllowsName("a.example.com", 80));
  EXPECT_FALSE(r.AllowsName("example.com", 443));
  EXPECT_FALSE(r.AllowsName("aexample.com", 443));
}

TEST(EgressRulesTest, AddressLiteralsNeedAnAddressPattern) {
  EgressRules r = Rules({"pypi.org", "198.51.100.0/24:443", "[2001:db8::]/32"});
  EXPECT_TRUE(r.AllowsAddressLiteral(Ip("198.51.100.9"), 443));
  EXPECT_FALSE(r.AllowsAddressLiteral(Ip("198.51.100.9"), 80));
  EXPECT_FALSE(r.AllowsAddressLiteral(Ip("198.51.101.9"), 443));
  EXPECT_TRUE(r.AllowsAddressLiteral(Ip("::ffff:198.51.100.9"), 443));
  EXPECT_TRUE(r.AllowsAddressLiteral(Ip("2001:db8::5"), 22));
  EXPECT_FALSE(r.AllowsName("198.51.100.9", 443));
}

TEST(EgressRulesTest, LoopbackMetadataAndTheHostNeedTheExactAddress) {
  const std::vector<IpAddress> own = {Ip("192.0.2.10"), Ip("2001:db8::10")};
  EgressRules wide = Rules({"rebind.test", "127.0.0.0/8", "0.0.0.0/0"});
  for (const char* a :
       {"127.0.0.1", "127.1.2.3", "::1", "169.254.169.254", "169.254.1.1", "fe80::1", "0.0.0.0",
        "::", "224.0.0.1", "255.255.255.255", "192.0.2.10", "2001:db8::10", "::ffff:127.0.0.1",
        "::127.0.0.1", "64:ff9b::a9fe:a9fe", "fd00:ec2::254", "100.100.100.200"}) {
    EXPECT_TRUE(wide.RefusedClass(Ip(a), 80, own).has_value()) << a;
  }
  EXPECT_FALSE(wide.RefusedClass(Ip("198.51.100.1"), 80, own).has_value());
  EXPECT_FALSE(wide.RefusedClass(Ip("10.1.2.3"), 80, own).has_value());  // a team's index

  EgressRules exact = Rules({"127.0.0.1:3141", "169.254.169.254"});
  EXPECT_FALSE(exact.RefusedClass(Ip("127.0.0.1"), 3141, own).has_value());
  EXPECT_TRUE(exact.RefusedClass(Ip("127.0.0.1"), 80, own).has_value());
  EXPECT_TRUE(exact.RefusedClass(Ip("127.0.0.2"), 3141, own).has_value());
  EXPECT_FALSE(exact.RefusedClass(Ip("169.254.169.254"), 80, own).has_value());
  EXPECT_EQ(*wide.RefusedClass(Ip("169.254.169.254"), 80, own), AddressClass::kMetadata);
  EXPECT_EQ(*wide.RefusedClass(Ip("192.0.2.10"), 80, own), AddressClass::kHostOwn);
}

}  // namespace
}  // namespace agentbox
