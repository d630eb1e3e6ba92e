// A terminal exec's supervision where the PTY master never hangs up (gVisor's, before its fix
// of google/gvisor#9333): its end is the tree's end, read from the init's status pipe. The
// "master" here is a pipe whose write end the test keeps open, as no EOF ever comes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "proc/child_plan.h"
#include "proc/supervisor.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

struct Box {
  SupervisedSandbox box;  // no pid, no pidfd: the supervisor goes by the pipes, as under gVisor
  UniqueFd master_writer, status_writer;
};

Box MakeBox(std::string_view shown) {
  Box b;
  auto out = MakePipe(), status = MakePipe(), error = MakePipe();
  EXPECT_TRUE(out.ok() && status.ok() && error.ok());
  EXPECT_EQ(::write(out->write.get(), shown.data(), shown.size()),
            static_cast<ssize_t>(shown.size()));
  b.box.stdout_read = std::move(out->read);
  b.box.status_read = std::move(status->read);
  b.box.error_read = std::move(error->read);  // its writer closed: the command was executed
  b.master_writer = std::move(out->write);
  b.status_writer = std::move(status->write);
  return b;
}

SupervisionLimits TerminalLimits() {
  SupervisionLimits limits;
  limits.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  limits.kill_all = [] {};
  limits.finish_on_report = true;
  limits.output_is_terminal = true;
  return limits;
}

TEST(SupervisorTerminalTest, TheInitsReportEndsItWithoutTheMastersHangup) {
  Box b = MakeBox("hello\r\n");
  InitReport report = {3 << 8, 0, 0};
  ASSERT_EQ(::write(b.status_writer.get(), &report, sizeof(report)),
            static_cast<ssize_t>(sizeof(report)));
  OutputCapture output(1024, /*forward_fds=*/false);
  const auto limits = TerminalLimits();
  SupervisionOutcome outcome = Supervise(b.box, output, limits);
  ASSERT_TRUE(outcome.command_status.has_value());
  EXPECT_EQ(*outcome.command_status, 3 << 8);
  EXPECT_EQ(output.kept(OutputStream::kStdout), "hello\r\n");  // what it held is all read
}

TEST(SupervisorTerminalTest, AnInitGoneWithoutReportEndsItToo) {
  Box b = MakeBox("partial");
  b.status_writer.reset();  // killed: its status pipe closes with no report
  OutputCapture output(1024, /*forward_fds=*/false);
  const auto limits = TerminalLimits();
  SupervisionOutcome outcome = Supervise(b.box, output, limits);
  EXPECT_FALSE(outcome.command_status.has_value());
  EXPECT_EQ(output.kept(OutputStream::kStdout), "partial");
}

}  // namespace
}  // namespace agentbox
