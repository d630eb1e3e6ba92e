#include "proto/effect_report.h"

#include <gtest/gtest.h>

#include "proto/exec_result.h"
#include "proto/exec_wire.h"

namespace agentbox {
namespace {

EffectReport Sample() {
  EffectReport r;
  r.workspace.observed = true;
  r.workspace.created = 2;
  r.workspace.modified = 1;
  r.workspace.size_delta = 12 * 1024 + 300;
  r.workspace.listed = {{"/workspace/a.txt", ChangeKind::kCreated, EntryType::kFile, 12},
                        {"/workspace/lib", ChangeKind::kCreated, EntryType::kDir, 0},
                        {"/workspace/b", ChangeKind::kModified, EntryType::kFile, -4}};
  r.AddWall({kWallSeccomp, "unshare", 2, "EPERM", "seccomp: unshare", "unshare", kSeenByKernel,
             "seccomp denied unshare (EPERM), 2 times"});
  r.AddWall({kWallLimit, "timeout", 1, "", "timeout 2s", "", kSeenBySupervisor, "timeout: ..."});
  r.syscalls_observed = true;
  r.processes_started = 7;
  r.bytes_written = 49152;
  return r;
}

TEST(EffectReportTest, JsonHasEveryPartInOrder) {
  nlohmann::ordered_json j = EffectsJson(Sample());
  EXPECT_EQ(j.dump(),
            R"({"workspace":{"observed":true,"created":2,"modified":1,"deleted":0,)"
            R"("size_delta":12588,"changes":[)"
            R"({"path":"/workspace/a.txt","change":"created","type":"file","size_delta":12},)"
            R"({"path":"/workspace/lib","change":"created","type":"dir","size_delta":0},)"
            R"({"path":"/workspace/b","change":"modified","type":"file","size_delta":-4}]},)"
            R"("walls":[{"wall":"seccomp","what":"unshare","count":2,"errno":"EPERM",)"
            R"("rule":"seccomp: unshare","process":"unshare","seen_by":"seccomp_notification",)"
            R"("message":"seccomp denied unshare (EPERM), 2 times"},)"
            R"({"wall":"limit","what":"timeout","count":1,"rule":"timeout 2s",)"
            R"("seen_by":"supervisor","message":"timeout: ..."}],)"
            R"("syscalls_observed":true,"processes_started":7,"bytes_written":49152})");
}

TEST(EffectReportTest, NotObservedSaysWhy) {
  EffectReport r;
  r.workspace.reason = "open /workspace: Permission denied";
  r.syscalls_reason = "gVisor";
  nlohmann::ordered_json j = EffectsJson(r);
  EXPECT_EQ(j["workspace"].dump(),
            R"({"observed":false,"reason":"open /workspace: Permission denied"})");
  EXPECT_EQ(j["syscalls_observed"], false);
  EXPECT_EQ(j["syscalls_reason"], "gVisor");
  EXPECT_TRUE(j["processes_started"].is_null());
}

TEST(EffectReportTest, RoundTripsThroughTheAgentsWire) {
  ExecResult result;
  result.effects = Sample();
  result.effects.workspace.partial = true;
  result.effects.workspace.reason = "more than 20000 entries";
  auto back = ExecResultFromWire(ExecResultToWire(result));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(EffectsJson(back->effects).dump(), EffectsJson(result.effects).dump());
}

TEST(EffectReportTest, MalformedFromTheAgentIsAnError) {
  auto bad = EffectsFromJson(nlohmann::json::parse(R"({"workspace":{"observed":"yes"}})"));
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInternal);
}

TEST(EffectReportTest, WallsAreBounded) {
  EffectReport r;
  for (size_t i = 0; i < kMaxWalls + 5; ++i) r.AddWall({kWallSeccomp, "x"});
  EXPECT_EQ(r.walls.size(), kMaxWalls);
  EXPECT_EQ(r.walls_omitted, 5u);
}

TEST(EffectReportTest, TheSummaryLine) {
  EXPECT_EQ(EffectsSummaryLine(Sample()),
            "effects: /workspace: 2 created, 1 modified (+12K); walls: seccomp unshare x2, "
            "timeout 2s; 7 processes, 48K written");
  EffectReport quiet;
  quiet.workspace.observed = true;
  quiet.processes_started = 1;
  EXPECT_EQ(EffectsSummaryLine(quiet), "") << "nothing changed, no wall: nothing to say";
  EffectReport removed;
  removed.workspace.observed = true;
  removed.workspace.deleted = 3;
  removed.workspace.size_delta = -3 * 1024 * 1024;
  EXPECT_EQ(EffectsSummaryLine(removed), "effects: /workspace: 3 deleted (-3.0M)");
  EffectReport bounded;
  bounded.workspace.observed = true;
  bounded.workspace.partial = true;
  bounded.workspace.reason = "more than 20000 entries";
  EXPECT_EQ(EffectsSummaryLine(bounded),
            "effects: /workspace: no change counted (partial: more than 20000 entries)")
      << "a walk that stopped at its bound must say so, even when it counted nothing";
  bounded.workspace.created = 2;
  bounded.workspace.size_delta = 2048;
  EXPECT_EQ(EffectsSummaryLine(bounded),
            "effects: /workspace: 2 created (+2.0K) (partial: more than 20000 entries)");
}

}  // namespace
}  // namespace agentbox
