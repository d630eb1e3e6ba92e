// The egress relay's lines (proto/relay_wire.h).
#include "proto/relay_wire.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

TEST(RelayWireTest, Requests) {
  auto listen = ParseRelayRequest("listen");
  ASSERT_TRUE(listen.has_value());
  EXPECT_EQ(listen->kind, RelayRequest::Kind::kListen);
  const std::string park = RelayParkLine(42);
  EXPECT_EQ(park, "park 42\n");
  auto parsed = ParseRelayRequest(std::string_view(park).substr(0, park.size() - 1));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->kind, RelayRequest::Kind::kPark);
  EXPECT_EQ(parsed->id, 42u);
  for (const char* bad : {"", "listen ", "park", "park ", "park -1", "park +1", "park 1x",
                          "park 99999999999999999999999", "LISTEN", "park 05"}) {
    EXPECT_FALSE(ParseRelayRequest(bad).has_value()) << bad;
  }
}

TEST(RelayWireTest, ListenAnswer) {
  const std::string line = RelayListenAnswer(7, 3128);
  EXPECT_EQ(line, "ok 7 3128\n");
  auto parsed = ParseRelayListenAnswer(std::string_view(line).substr(0, line.size() - 1));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->first, 7u);
  EXPECT_EQ(parsed->second, 3128);
  for (const char* bad : {"ok 7 0", "ok 7 65536", "ok 7", "ok  7 1", "no 7 1", "ok 7 1 2"}) {
    EXPECT_FALSE(ParseRelayListenAnswer(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace agentbox
