// The session log: records built and read back (core/session_records.h), appended as lines and
// parsed with a torn last line skipped and said (core/session_log.h).
#include "core/session_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "../proc/temp_tree.h"
#include "core/session_records.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

using ojson = nlohmann::ordered_json;

ExecRequest SampleRequest() {
  ExecRequest r;
  r.argv = {"sh", "-c", "echo hi > out"};
  r.env = {{"A", "1"}, {"B", "two words"}};
  r.cwd = "/workspace/src";
  r.timeout_seconds = 12.5;
  r.output_limit = 4096;
  r.detach = true;
  return r;
}

TEST(SessionRecordsTest, AnExecRequestRoundTripsThroughItsRecord) {
  ojson rec = ojson::object();
  AddExecRequest(rec, SampleRequest());
  // As replay reads it: from the log's text.
  auto back = ExecRequestFromRecord(nlohmann::json::parse(rec.dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  const ExecRequest want = SampleRequest();
  EXPECT_EQ(back->argv, want.argv);
  EXPECT_EQ(back->env, want.env);
  EXPECT_EQ(back->cwd, want.cwd);
  EXPECT_EQ(back->timeout_seconds, want.timeout_seconds);
  EXPECT_EQ(back->output_limit, want.output_limit);
  EXPECT_EQ(back->detach, true);
  EXPECT_EQ(back->tty, false);
  EXPECT_EQ(rec["stdin"], false);
}

TEST(SessionRecordsTest, AMalformedExecRecordNamesTheProblem) {
  ojson rec = ojson::object();
  AddExecRequest(rec, SampleRequest());
  nlohmann::json no_cwd = nlohmann::json::parse(rec.dump());
  no_cwd.erase("cwd");
  auto st = ExecRequestFromRecord(no_cwd).status();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("cwd"), std::string::npos) << st.message();
  nlohmann::json empty = nlohmann::json::parse(rec.dump());
  empty["argv"] = nlohmann::json::array();
  EXPECT_NE(ExecRequestFromRecord(empty).status().message().find("empty argv"), std::string::npos);
  nlohmann::json bad_env = nlohmann::json::parse(rec.dump());
  bad_env["env"] = {{"A"}};
  EXPECT_FALSE(ExecRequestFromRecord(bad_env).ok());
}

TEST(SessionRecordsTest, OutcomesAndDigests) {
  ExecResult r;
  r.exit_code = 3;
  r.stdout_truncated = true;
  r.limits_hit = {"output"};
  ojson rec = ojson::object();
  AddExecOutcome(rec, r, "sha256:out", "sha256:err");
  EXPECT_EQ(rec["exit_code"], 3);
  EXPECT_EQ(rec["reason"], "exited");
  EXPECT_TRUE(rec["signal"].is_null());
  EXPECT_EQ(rec["stdout_digest"], "sha256:out");
  EXPECT_EQ(rec["stderr_digest"], "sha256:err");
  EXPECT_EQ(rec["stdout_truncated"], true);
  EXPECT_EQ(rec["limits_hit"], ojson::array({"output"}));
  EXPECT_FALSE(rec.contains("error"));

  ojson ok = ojson::object(), failed = ojson::object();
  AddOutcome(ok, OkStatus());
  EXPECT_TRUE(ok.empty());
  AddOutcome(failed, NotFound("no such file"));
  EXPECT_EQ(failed["error"], "no such file");
  EXPECT_EQ(failed["error_code"], StatusCodeName(StatusCode::kNotFound));

  ojson digests = ojson::object();
  SetWorkspaceDigest(digests, "workspace_before", StatusOr<std::string>(std::string("sha256:ws")));
  SetWorkspaceDigest(digests, "workspace_after", StatusOr<std::string>(Internal("walk failed")));
  EXPECT_EQ(digests["workspace_before"], "sha256:ws");
  EXPECT_TRUE(digests["workspace_after"].is_null());
  EXPECT_EQ(digests["digest_error"], "walk failed");
}

TEST(SessionRecordsTest, HeadAndPolicyHash) {
  SandboxRecord box;
  box.id = "0123456789ab";
  ojson head = SessionRecordHead("exec", box);
  EXPECT_EQ(head["v"], 1);
  EXPECT_EQ(head["op"], "exec");
  EXPECT_EQ(head["sandbox"], box.id);
  EXPECT_TRUE(head["image_digest"].is_null()) << "the host's root";
  EXPECT_EQ(head["time"].get<std::string>().size(), std::string("2026-12-05T07:00:00.000Z").size());
  EXPECT_EQ(head["policy_hash"], PolicyHash(box.spec));

  SandboxSpec other = box.spec;
  EXPECT_EQ(PolicyHash(other), PolicyHash(box.spec)) << "equal policies, equal hashes";
  other.env.emplace_back("TZ", "Europe/Paris");  // what the policy's "tz" sets
  EXPECT_NE(PolicyHash(other), PolicyHash(box.spec)) << "tz is part of the policy";
  box.image_id = "sha256:img";
  EXPECT_EQ(SessionRecordHead("exec", box)["image_digest"], "sha256:img");
}

TEST(SessionLogTest, AppendedRecordsParseBackInOrder) {
  TempTree state;
  ojson a = {{"op", "create"}, {"n", 1}};
  ojson b = {{"op", "exec"}, {"argv", {std::string("printf"), std::string("\xff\xfe")}}};
  ASSERT_TRUE(AppendSessionRecord(state.root(), a).ok());
  ASSERT_TRUE(AppendSessionRecord(state.root(), b).ok()) << "invalid UTF-8 is replaced";
  struct stat st;
  ASSERT_EQ(::stat(SessionLogPath(state.root()).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto text = ReadFile(SessionLogPath(state.root()));
  ASSERT_TRUE(text.ok());
  auto log = ParseSessionLog(*text);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->records.size(), 2u);
  EXPECT_EQ(log->records[0]["n"], 1);
  EXPECT_EQ(log->records[1]["op"], "exec");
  EXPECT_EQ(log->records[1]["argv"][1], "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(log->lines, (std::vector<size_t>{1, 2}));
  EXPECT_FALSE(log->torn_tail);
}

TEST(SessionLogTest, ATornLastLineIsSkippedAndSaid) {
  const std::string text =
      "{\"op\":\"create\"}\n\n{\"op\":\"exec\",\"exit_code\":0}\n{\"op\":\"exec\",\"exit_co";
  auto log = ParseSessionLog(text);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->records.size(), 2u);
  EXPECT_EQ(log->lines, (std::vector<size_t>{1, 3})) << "an empty line keeps its number";
  EXPECT_TRUE(log->torn_tail);

  auto whole = ParseSessionLog("{\"op\":\"create\"}\n");
  ASSERT_TRUE(whole.ok());
  EXPECT_FALSE(whole->torn_tail);
  auto empty = ParseSessionLog("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->records.empty());
}

TEST(SessionLogTest, ALineThatIsNoRecordIsAnErrorNamingIt) {
  for (const char* bad :
       {"{\"op\":\"create\"}\nnot json\n", "{\"op\":\"create\"}\n[1]\n",
        "{\"op\":\"create\"}\n{\"no\":\"op\"}\n", "{\"op\":\"create\"}\n{\"op\":7}\n"}) {
    auto log = ParseSessionLog(bad);
    ASSERT_FALSE(log.ok()) << bad;
    EXPECT_EQ(log.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(log.status().message().find("line 2"), std::string::npos) << log.status().message();
  }
}

}  // namespace
}  // namespace agentbox
