// One mapping from what the supervisor saw to the result, for `run` and the agent's exec.
#include "proc/outcome.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

namespace agentbox {
namespace {

OutputCapture Capture(uint64_t limit) { return OutputCapture(limit, /*forward_fds=*/false); }

TEST(ResultOfSupervisionTest, ExitStatusAndTheTreesUsageWithoutACgroup) {
  SupervisionOutcome outcome;
  outcome.command_status = 3 << 8;  // exited 3
  outcome.cpu_ms = 12.5;
  outcome.max_rss_bytes = 4096;
  auto output = Capture(1024);
  ExecResult r = ResultOfSupervision(outcome, nullptr, output);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.reason, ExitReason::kExited);
  EXPECT_EQ(r.cpu_ms, 12.5);
  EXPECT_EQ(r.peak_memory_bytes, 4096u);
  EXPECT_TRUE(r.limits_hit.empty());
}

TEST(ResultOfSupervisionTest, TheCgroupsCountersWinWhenGiven) {
  SupervisionOutcome outcome;
  outcome.command_status = SIGKILL;
  outcome.cpu_ms = 1;
  CgroupStats stats;
  stats.cpu_ms = 40;
  stats.peak_memory_bytes = 1 << 20;
  stats.oom_killed = true;
  auto output = Capture(1024);
  ExecResult r = ResultOfSupervision(outcome, &stats, output);
  EXPECT_EQ(r.reason, ExitReason::kOom);
  EXPECT_EQ(r.exit_code, 137);
  EXPECT_EQ(r.cpu_ms, 40);
  EXPECT_EQ(r.peak_memory_bytes, 1u << 20);
  EXPECT_TRUE(r.HasLimitHit(kLimitMemory));
}

TEST(ResultOfSupervisionTest, TimeoutRefusedAllocationAndDroppedOutput) {
  SupervisionOutcome outcome;
  outcome.timed_out = true;
  outcome.disk_refused = true;
  auto output = Capture(4);
  output.Append(OutputStream::kStdout, "more than four bytes");
  ExecResult r = ResultOfSupervision(outcome, nullptr, output);
  EXPECT_EQ(r.exit_code, 124);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_FALSE(r.stderr_truncated);
  EXPECT_EQ(r.limits_hit, (std::vector<std::string>{kLimitTimeout, kLimitDisk, kLimitOutput}));
}

// A command that is not found is the command's 127, its message on the command's stderr.
TEST(ResultOfSupervisionTest, AnExecFailureIsTheCommandsOwnStderr) {
  SupervisionOutcome outcome;
  ChildError error = {};
  error.step = ChildStep::kExec;
  error.err = ENOENT;
  std::strcpy(error.detail, "nosuch");
  outcome.setup_error = error;
  auto output = Capture(1024);
  ExecResult r = ResultOfSupervision(outcome, nullptr, output);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_TRUE(r.stderr_data.empty());
  EXPECT_EQ(output.kept(OutputStream::kStderr),
            "agentbox: executing the command nosuch: No such file or directory\n");
}

TEST(ResultOfSupervisionTest, AnotherSetupFailureIsAnError) {
  SupervisionOutcome outcome;
  ChildError error = {};
  error.step = ChildStep::kMount;
  error.err = EPERM;
  std::strcpy(error.detail, "/proc");
  outcome.setup_error = error;
  auto output = Capture(1024);
  ExecResult r = ResultOfSupervision(outcome, nullptr, output);
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.reason, ExitReason::kError);
  EXPECT_EQ(r.error, "sandbox setup failed: mounting /proc: Operation not permitted");
  EXPECT_EQ(r.error_code, StatusCode::kUnavailable);  // the host did not give the sandbox
  EXPECT_EQ(DescribeChildError(error), "mounting /proc: Operation not permitted");
}

// A working directory that does not exist is the request's: not_found, as the API says it.
TEST(ResultOfSupervisionTest, AMissingWorkingDirectoryIsNotFound) {
  SupervisionOutcome outcome;
  ChildError error = {};
  error.step = ChildStep::kCwd;
  error.err = ENOENT;
  std::strcpy(error.detail, "/workspace/nope");
  outcome.setup_error = error;
  auto output = Capture(1024);
  ExecResult r = ResultOfSupervision(outcome, nullptr, output);
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.error_code, StatusCode::kNotFound);
}

}  // namespace
}  // namespace agentbox
