#include "proto/policy_walls.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

TEST(PolicyWallsTest, EachLimitHitWithItsValueFirst) {
  ExecResult r;
  r.effects.AddWall({kWallSeccomp, "unshare"});
  r.AddLimitHit(kLimitTimeout);
  r.AddLimitHit(kLimitMemory);
  Limits limits;
  limits.timeout_seconds = 2;
  limits.memory_bytes = 64ull << 20;
  AddPolicyWalls(r, LimitValuesOf(limits));
  ASSERT_EQ(r.effects.walls.size(), 3u);
  EXPECT_EQ(r.effects.walls[0].wall, kWallLimit);
  EXPECT_EQ(r.effects.walls[0].what, "timeout");
  EXPECT_EQ(r.effects.walls[0].rule, "timeout 2s");
  EXPECT_NE(r.effects.walls[0].message.find("(2 s, --timeout)"), std::string::npos);
  EXPECT_EQ(r.effects.walls[1].rule, "memory 64M");
  EXPECT_EQ(r.effects.walls[2].what, "unshare");
}

TEST(PolicyWallsTest, TheProxysDenialsAndNotTheStderrGuessesWithEgress) {
  ExecResult r;
  r.network.egress = true;
  r.network.connections.push_back({"pypi.org", 443, true, "192.0.2.1", 1, 1, ""});
  r.network.connections.push_back({"evil.test", 443, false, "", 0, 0, kNotOnTheList});
  r.network.connections.push_back({"evil.test", 443, false, "", 0, 0, kNotOnTheList});
  r.effects.AddWall({kWallNetwork, "evil.test", 1, "", "allow_hosts", "", kSeenInOutput, "x"});
  AddPolicyWalls(r, LimitValues{});
  ASSERT_EQ(r.effects.walls.size(), 1u);
  EXPECT_EQ(r.effects.walls[0].what, "evil.test:443");
  EXPECT_EQ(r.effects.walls[0].count, 2u);
  EXPECT_EQ(r.effects.walls[0].seen_by, kSeenByProxy);
  EXPECT_NE(r.effects.walls[0].message.find("denied by policy (allow_hosts)"), std::string::npos);
}

TEST(PolicyWallsTest, WithoutEgressTheStderrsNetworkWallStays) {
  ExecResult r;
  r.effects.AddWall({kWallNetwork, "example.com", 1, "", "allow_hosts", "", kSeenInOutput, "x"});
  AddPolicyWalls(r, LimitValues{});
  ASSERT_EQ(r.effects.walls.size(), 1u);
  EXPECT_EQ(r.effects.walls[0].rule, "no network");  // no allow_hosts: nothing is reachable
}

// The DNS catcher saw the lookup: its wall names the host and the rule; stderr's guess goes.
TEST(PolicyWallsTest, ALookupInTheSandboxIsANoNetworkWall) {
  ExecResult r;
  NetworkConnection lookup;
  lookup.host = "pypi.org";
  lookup.kind = NetworkKind::kLookup;
  r.network.connections.push_back(lookup);
  r.effects.AddWall({kWallNetwork, "pypi.org", 1, "", "allow_hosts", "", kSeenInOutput, "x"});
  AddPolicyWalls(r, LimitValues{});
  ASSERT_EQ(r.effects.walls.size(), 1u);
  EXPECT_EQ(r.effects.walls[0].what, "pypi.org");
  EXPECT_EQ(r.effects.walls[0].rule, "no network");
  EXPECT_EQ(r.effects.walls[0].seen_by, kSeenByDnsCatcher);
}

}  // namespace
}  // namespace agentbox
