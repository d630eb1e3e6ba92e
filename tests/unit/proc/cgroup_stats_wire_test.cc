// The agent's box_stats answer (proc/cgroup_stats_wire.h).
#include "proc/cgroup_stats_wire.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace agentbox {
namespace {

TEST(CgroupStatsWireTest, RoundTrip) {
  CgroupStats s;
  s.peak_memory_bytes = 73400320;
  s.cpu_ms = 12.5;
  s.oom_kills = 1;
  s.memory_events = 5;
  s.pids_events = 2;
  s.throttled_periods = 3;
  s.memory_limit_bytes = 134217728;
  s.pids_limit = UINT64_MAX;  // none
  auto back = CgroupStatsFromJson(nlohmann::json::parse(CgroupStatsToWire(s)));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->peak_memory_bytes, s.peak_memory_bytes);
  EXPECT_DOUBLE_EQ(back->cpu_ms, 12.5);
  EXPECT_EQ(back->oom_kills, 1u);
  EXPECT_EQ(back->memory_events, 5u);
  EXPECT_EQ(back->pids_events, 2u);
  EXPECT_EQ(back->throttled_periods, 3u);
  EXPECT_EQ(back->memory_limit_bytes, 134217728u);
  EXPECT_EQ(back->pids_limit, UINT64_MAX);
  EXPECT_TRUE(back->oom_killed && back->memory_limit_hit && back->pids_limit_hit &&
              back->cpu_throttled);
}

TEST(CgroupStatsWireTest, WhatTheAgentCannotSayIsUnknown) {
  // The agent runs inside the sandbox: its answer is untrusted input.
  auto s = CgroupStatsFromJson(nlohmann::json::parse(
      R"({"ok":true,"stats":{"pids_limit":-1,"memory_limit_bytes":"big","cpu_ms":-5}})"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->pids_limit, 0u);
  EXPECT_EQ(s->memory_limit_bytes, 0u);
  EXPECT_EQ(s->cpu_ms, 0);
  EXPECT_EQ(CgroupStatsFromJson(nlohmann::json::parse(R"({"ok":true})")).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace agentbox
