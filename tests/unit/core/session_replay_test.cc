// Replay's judgement, without a sandbox: which fields of a recorded record and the replay's
// record of the same operation count as a divergence (CompareRecords), and how a report reads.
#include "core/session_replay.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentbox {
namespace {

using json = nlohmann::json;

json Exec() {
  return {{"op", "exec"},
          {"argv", {"sh", "-c", "echo hi"}},
          {"exit_code", 0},
          {"reason", "exited"},
          {"stdout_digest", "sha256:out"},
          {"stderr_digest", "sha256:err"},
          {"workspace_before", "sha256:ws0"},
          {"workspace_after", "sha256:ws1"},
          {"duration_ms", 12.0},
          {"time", "2026-12-05T07:00:00.000Z"}};
}

std::vector<std::string> Fields(const std::vector<Divergence>& ds) {
  std::vector<std::string> out;
  for (const Divergence& d : ds) out.push_back(d.field);
  return out;
}

TEST(CompareRecordsTest, TheSameExecDoesNotDivergeWhateverItsTimeAndDuration) {
  json replayed = Exec();
  replayed["duration_ms"] = 99.0;
  replayed["time"] = "2027-01-01T00:00:00.000Z";
  replayed["sandbox"] = "another";
  EXPECT_TRUE(CompareRecords(Exec(), replayed).empty());
}

TEST(CompareRecordsTest, AnExecDivergesOnExitCodeOutputAndWorkspace) {
  for (const char* field : {"exit_code", "reason", "stdout_digest", "stderr_digest",
                            "workspace_before", "workspace_after"}) {
    json replayed = Exec();
    replayed[field] = "something else";
    std::vector<Divergence> ds = CompareRecords(Exec(), replayed);
    ASSERT_EQ(Fields(ds), std::vector<std::string>{field});
    EXPECT_EQ(ds[0].recorded, Exec()[field]);
    EXPECT_EQ(ds[0].replayed, "something else");
  }
  json exit1 = Exec();
  exit1["exit_code"] = 1;
  exit1["stdout_digest"] = "sha256:other";
  exit1["workspace_after"] = "sha256:ws2";
  EXPECT_EQ(Fields(CompareRecords(Exec(), exit1)),
            (std::vector<std::string>{"exit_code", "stdout_digest", "workspace_after"}));
}

TEST(CompareRecordsTest, ARollbackIsComparedAndAMissingFieldIsNull) {
  json recorded = Exec();
  recorded["rolled_back"] = true;
  std::vector<Divergence> ds = CompareRecords(recorded, Exec());
  ASSERT_EQ(Fields(ds), std::vector<std::string>{"rolled_back"});
  EXPECT_TRUE(ds[0].replayed.is_null());
  json no_digest = Exec();
  no_digest["workspace_after"] = nullptr;  // a digest that could not be computed
  EXPECT_EQ(Fields(CompareRecords(Exec(), no_digest)), std::vector<std::string>{"workspace_after"});
}

TEST(CompareRecordsTest, ABackgroundStartComparesOnlyTheWorkspaceBefore) {
  json recorded = {{"op", "exec"},
                   {"detach", true},
                   {"process", "p1"},
                   {"workspace_before", "sha256:a"},
                   {"workspace_after", "x"}};
  json replayed = recorded;
  replayed["process"] = "p9";
  replayed["workspace_after"] = "y";  // it runs on: what it leaves is not the start's
  EXPECT_TRUE(CompareRecords(recorded, replayed).empty());
  replayed["workspace_before"] = "sha256:b";
  EXPECT_EQ(Fields(CompareRecords(recorded, replayed)),
            std::vector<std::string>{"workspace_before"});
}

TEST(CompareRecordsTest, AFileOperationDivergesOnItsErrorAndWorkspace) {
  json recorded = {{"op", "write_file"},
                   {"path", "a.txt"},
                   {"workspace_before", "sha256:a"},
                   {"workspace_after", "sha256:b"}};
  EXPECT_TRUE(CompareRecords(recorded, recorded).empty());
  json failed = recorded;
  failed["error"] = "permission denied";
  failed["workspace_after"] = "sha256:a";
  EXPECT_EQ(Fields(CompareRecords(recorded, failed)),
            (std::vector<std::string>{"error", "workspace_after"}));
}

TEST(CompareRecordsTest, ASnapshotComparesTheWorkspaceOnly) {
  json recorded = {{"op", "snapshot"},
                   {"snapshot", {{"id", "abcd00000001"}, {"name", "s"}}},
                   {"workspace_after", "sha256:a"}};
  json replayed = recorded;
  replayed["snapshot"]["id"] = "ffff00000002";  // a snapshot of its own
  EXPECT_TRUE(CompareRecords(recorded, replayed).empty());
  replayed["workspace_after"] = "sha256:b";
  EXPECT_EQ(Fields(CompareRecords(recorded, replayed)),
            std::vector<std::string>{"workspace_after"});
}

TEST(ReplayReportTest, TextAndJsonSayEveryStep) {
  ReplayReport r;
  r.sandbox = "0123456789ab";
  r.steps.push_back({0, "start", "the starting workspace", {}, "", ""});
  r.steps.push_back({2, "exec", "false", {{"exit_code", 1, 0}}, "", ""});
  r.steps.push_back({3, "exec", "vi", {}, "a terminal exec", ""});
  r.diverged = 1;
  r.skipped = 1;
  r.notes.push_back("the log's last line is incomplete: left out");
  const std::string text = ReplayReportText(r);
  EXPECT_NE(text.find("line 0 start the starting workspace: same\n"), std::string::npos) << text;
  EXPECT_NE(text.find("line 2 exec false: DIVERGED\n    exit_code: recorded 1, replayed 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("line 3 exec vi: skipped (a terminal exec)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("note: the log's last line is incomplete"), std::string::npos) << text;
  EXPECT_NE(text.find("2 replayed, 1 diverged, 1 skipped, in sandbox 0123456789ab (removed)"),
            std::string::npos)
      << text;
  nlohmann::ordered_json j = ReplayReportJson(r);
  EXPECT_EQ(j["replayed"], 2);
  EXPECT_EQ(j["diverged"], 1);
  EXPECT_EQ(j["steps"][1]["divergences"][0]["field"], "exit_code");
  EXPECT_EQ(j["steps"][2]["skipped"], "a terminal exec");
}

}  // namespace
}  // namespace agentbox
