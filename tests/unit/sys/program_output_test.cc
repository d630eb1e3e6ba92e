// RunForOutput and RunHostProgram on /bin/sh: the output, the PATH lookup, the timeout, the
// size cap, and each failure's one line.
#include "sys/program_output.h"

#include <gtest/gtest.h>

#include "sys/run_program.h"

namespace agentbox {
namespace {

ProgramRun Shell(const std::string& script) {
  ProgramRun run;
  run.argv = {"sh", "-c", script};
  run.env = {"GREETING=hello"};
  run.path = "/nonexistent:/bin:/usr/bin";
  return run;
}

TEST(RunForOutput, StdoutOfAProgramFoundOnPath) {
  auto out = RunForOutput(Shell("echo \"$GREETING\"; echo to-stderr >&2"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "hello\n");
  EXPECT_EQ(FindOnPath("sh", "/nonexistent:/bin"), "/bin/sh");
  EXPECT_EQ(FindOnPath("sh", "/nonexistent"), "");
}

TEST(RunForOutput, EachFailureIsOneLine) {
  EXPECT_EQ(RunForOutput(Shell("exit 4")).status().message(), "sh exited 4");
  ProgramRun slow = Shell("exec sleep 30");
  slow.timeout_ms = 200;
  EXPECT_EQ(RunForOutput(slow).status().message(), "sh did not finish in 200 ms");
  ProgramRun chatty = Shell("yes");
  chatty.max_output = 1000;
  EXPECT_EQ(RunForOutput(chatty).status().message(), "sh wrote more than 1000 bytes");
  ProgramRun missing = Shell("");
  missing.argv[0] = "no-such-program";
  EXPECT_EQ(RunForOutput(missing).status().code(), StatusCode::kUnavailable);
}

TEST(RunHostProgram, TheLastLineOfStderrNamesTheFailure) {
  EXPECT_TRUE(RunHostProgram({"/bin/sh", "-c", "exit 0"}).ok());
  Status failed = RunHostProgram({"/bin/sh", "-c", "echo first >&2; echo last >&2; exit 3"});
  EXPECT_EQ(failed.message(), "/bin/sh exited 3: last");
}

}  // namespace
}  // namespace agentbox
