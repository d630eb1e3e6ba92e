#include <gtest/gtest.h>

#include "http/http_status.h"
#include "mcp/session_cap.h"

namespace agentbox::mcp {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const SessionClock::time_point kNow = SessionClock::time_point() + std::chrono::hours(5);

TEST(McpSessionCapTest, OneSessionPerSandboxOfTheQuota) {
  EXPECT_EQ(MaxSessions(Caller{"a", 3, 1}), 3u);
  EXPECT_EQ(MaxSessions(Caller{"a", 0, 1}), 0u);  // unlimited sandboxes, unlimited sessions
  EXPECT_EQ(MaxSessions(Caller{}), 0u);           // anonymous: no tokens file
}

TEST(McpSessionCapTest, AdmitsUnderTheCapAndWithoutOne) {
  std::vector<SessionUse> one = {{"s1", true, kNow}};
  auto admitted = AdmitSession(Caller{"a", 2, 0}, one, kNow, minutes(10));
  ASSERT_TRUE(admitted.ok());
  EXPECT_FALSE(admitted->has_value());
  std::vector<SessionUse> many(50, SessionUse{"s", true, kNow});
  admitted = AdmitSession(Caller{"a", 0, 0}, many, kNow, minutes(10));
  ASSERT_TRUE(admitted.ok());
  EXPECT_FALSE(admitted->has_value());
}

TEST(McpSessionCapTest, RefusesAtTheCapWith429NamingTheQuota) {
  std::vector<SessionUse> full = {{"s1", false, kNow - seconds(30)}};
  auto refused = AdmitSession(Caller{"a", 1, 0}, full, kNow, minutes(10));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(HttpStatusFor(refused.status()), 429);
  EXPECT_NE(refused.status().message().find("tenant a may hold 1 MCP sessions"), std::string::npos);
  EXPECT_NE(refused.status().message().find("max_sandboxes"), std::string::npos);
  EXPECT_NE(refused.status().message().find("DELETE /mcp"), std::string::npos);
}

TEST(McpSessionCapTest, EndsTheStalestIdleSessionToMakeRoom) {
  std::vector<SessionUse> full = {{"recent", false, kNow - minutes(11)},
                                  {"busy", true, kNow - minutes(60)},  // a long call: kept
                                  {"oldest", false, kNow - minutes(30)}};
  auto admitted = AdmitSession(Caller{"a", 3, 0}, full, kNow, minutes(10));
  ASSERT_TRUE(admitted.ok());
  EXPECT_EQ(admitted->value_or(""), "oldest");
}

TEST(McpSessionCapTest, BusyOrRecentSessionsAreNeverEnded) {
  std::vector<SessionUse> full = {{"busy", true, kNow - minutes(60)},
                                  {"recent", false, kNow - minutes(9)}};
  EXPECT_FALSE(AdmitSession(Caller{"a", 2, 0}, full, kNow, minutes(10)).ok());
}

TEST(McpSessionCapTest, OneStaleSessionDoesNotMakeRoomFarOverTheCap) {
  std::vector<SessionUse> over = {{"s1", false, kNow - minutes(60)},
                                  {"s2", false, kNow - minutes(60)}};
  EXPECT_FALSE(AdmitSession(Caller{"a", 1, 0}, over, kNow, minutes(10)).ok());
}

// Sessions whose clients left without DELETE /mcp: idle long enough and serving nothing.
TEST(McpSessionCapTest, IdleSessionsAreThoseQuietLongEnoughAndNotBusy) {
  std::vector<SessionUse> uses = {{"fresh", false, kNow - seconds(30)},
                                  {"idle", false, kNow - minutes(11)},
                                  {"exactly", false, kNow - minutes(10)},
                                  {"long-call", true, kNow - minutes(40)}};
  EXPECT_EQ(IdleSessions(uses, kNow, minutes(10)), (std::vector<std::string>{"idle", "exactly"}));
  EXPECT_EQ(IdleSessions(uses, kNow, minutes(60)), std::vector<std::string>{});
  EXPECT_EQ(IdleSessions({}, kNow, seconds(1)), std::vector<std::string>{});
}

}  // namespace
}  // namespace agentbox::mcp
