// The TCP transport's pieces: addresses, tokens and the hello, as both sides read them.
#include "proto/agent_hello.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

namespace agentbox {
namespace {

uint16_t PortOf(const TcpAddress& a) {
  return a.addr.ss_family == AF_INET
             ? ntohs(reinterpret_cast<const struct sockaddr_in*>(&a.addr)->sin_port)
             : ntohs(reinterpret_cast<const struct sockaddr_in6*>(&a.addr)->sin6_port);
}

TEST(AgentHello, ParsesIpv4AndIpv6Literals) {
  auto v4 = ParseTcpAddress("10.88.0.5:7070");
  ASSERT_TRUE(v4.ok()) << v4.status().message();
  EXPECT_EQ(v4->addr.ss_family, AF_INET);
  EXPECT_EQ(PortOf(*v4), 7070);
  auto any = ParseTcpAddress("0.0.0.0:7070");
  ASSERT_TRUE(any.ok());
  for (const char* text : {"[fd00::5]:7070", "fd00::5:7070", "[::]:1"}) {
    auto v6 = ParseTcpAddress(text);
    ASSERT_TRUE(v6.ok()) << text << ": " << v6.status().message();
    EXPECT_EQ(v6->addr.ss_family, AF_INET6) << text;
    EXPECT_EQ(v6->len, sizeof(struct sockaddr_in6));
  }
  EXPECT_EQ(PortOf(*ParseTcpAddress("fd00::5:7070")), 7070);
}

TEST(AgentHello, RefusesWhatIsNoLiteralAndPort) {
  for (const char* text : {"", "7070", ":7070", "localhost:7070", "10.0.0.1", "10.0.0.1:",
                           "10.0.0.1:0", "10.0.0.1:65536", "10.0.0.1:70x", "[fd00::5]"}) {
    auto parsed = ParseTcpAddress(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(AgentHello, TcpAddressesAreTheOnesWithThePrefix) {
  EXPECT_TRUE(IsTcpAgentAddress("tcp:10.0.0.1:7070"));
  EXPECT_FALSE(IsTcpAgentAddress("/var/lib/agentbox/sandboxes/x/agent.sock"));
  EXPECT_FALSE(IsTcpAgentAddress("tc"));
}

TEST(AgentHello, TokensMustBeLongEnough) {
  EXPECT_EQ(*CheckAgentToken("0123456789abcdef"), "0123456789abcdef");
  EXPECT_EQ(*CheckAgentToken("0123456789abcdef\n"), "0123456789abcdef");
  EXPECT_EQ(*CheckAgentToken("0123456789abcdef\r\n"), "0123456789abcdef");
  EXPECT_FALSE(CheckAgentToken("").ok());
  EXPECT_FALSE(CheckAgentToken("\n").ok());
  EXPECT_FALSE(CheckAgentToken("short-token").ok());
  EXPECT_FALSE(CheckAgentToken(std::string(kAgentTokenMaxBytes + 1, 'x')).ok());
}

TEST(AgentHello, NewTokensAreLongHexAndNeverRepeat) {
  const std::string a = NewAgentToken(), b = NewAgentToken();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
  EXPECT_TRUE(CheckAgentToken(a).ok());
}

TEST(AgentHello, HelloCarriesTheToken) {
  auto token = HelloTokenFromWire(HelloRequestToWire("a-token-of-enough-bytes"));
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(*token, "a-token-of-enough-bytes");
  EXPECT_FALSE(HelloTokenFromWire(R"({"op":"ping"})").ok());
  EXPECT_FALSE(HelloTokenFromWire(R"({"op":"hello","token":1})").ok());
  EXPECT_FALSE(HelloTokenFromWire("not json").ok());
}

TEST(AgentHello, TheTargetRoundTripsAndAnUnknownOneIsRefused) {
  auto agent = HelloFromWire(HelloRequestToWire("a-token-of-enough-bytes"));
  ASSERT_TRUE(agent.ok());
  EXPECT_EQ(agent->target, HelloTarget::kAgent);
  auto relay =
      HelloFromWire(HelloRequestToWire("a-token-of-enough-bytes", HelloTarget::kEgressRelay));
  ASSERT_TRUE(relay.ok());
  EXPECT_EQ(relay->target, HelloTarget::kEgressRelay);
  EXPECT_EQ(relay->token, "a-token-of-enough-bytes");
  auto claim = HelloFromWire(HelloRequestToWire("a-token-of-enough-bytes", HelloTarget::kClaim));
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(claim->target, HelloTarget::kClaim);
  // Never taken for the agent: a "to" the agent does not know is no hello at all.
  EXPECT_FALSE(HelloFromWire(R"({"op":"hello","token":"a-token-of-enough-bytes","to":"x"})").ok());
  EXPECT_FALSE(HelloFromWire(R"({"op":"hello","token":"a-token-of-enough-bytes","to":1})").ok());
}

TEST(AgentHello, TokensMatchOnlyWhenEqual) {
  EXPECT_TRUE(TokensMatch("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(TokensMatch("0123456789abcdef", "0123456789abcdeF"));
  EXPECT_FALSE(TokensMatch("0123456789abcdef", "0123456789abcdef0"));
  EXPECT_FALSE(TokensMatch("", "0123456789abcdef"));
}

}  // namespace
}  // namespace agentbox
