#include "proto/output_capture.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

namespace agentbox {
namespace {

TEST(OutputCaptureTest, KeepsUpToLimitPerStream) {
  OutputCapture c(5, /*forward_fds=*/false);
  c.Append(OutputStream::kStdout, "abc");
  c.Append(OutputStream::kStdout, "defg");
  c.Append(OutputStream::kStdout, "hij");
  c.Append(OutputStream::kStderr, "12345");
  EXPECT_EQ(c.kept(OutputStream::kStdout), "abcde");
  EXPECT_TRUE(c.truncated(OutputStream::kStdout));
  EXPECT_EQ(c.dropped_bytes(OutputStream::kStdout), 5u);
  EXPECT_EQ(c.kept(OutputStream::kStderr), "12345");
  EXPECT_FALSE(c.truncated(OutputStream::kStderr));  // exactly the limit is not truncation
  c.Append(OutputStream::kStderr, "");
  EXPECT_FALSE(c.truncated(OutputStream::kStderr));
  c.Append(OutputStream::kStderr, "6");
  EXPECT_TRUE(c.truncated(OutputStream::kStderr));
}

TEST(OutputCaptureTest, ZeroLimitDropsEverything) {
  OutputCapture c(0, false);
  c.Append(OutputStream::kStdout, "x");
  EXPECT_EQ(c.kept(OutputStream::kStdout), "");
  EXPECT_EQ(c.dropped_bytes(OutputStream::kStdout), 1u);
}

TEST(OutputCaptureTest, FloodStaysBounded) {
  OutputCapture c(1024, false);
  const std::string chunk(64 * 1024, 'x');
  for (int i = 0; i < 1000; ++i) c.Append(OutputStream::kStdout, chunk);
  EXPECT_EQ(c.kept(OutputStream::kStdout).size(), 1024u);
  EXPECT_EQ(c.dropped_bytes(OutputStream::kStdout), 1000u * 64 * 1024 - 1024);
}

// Swaps fd 1 for a pipe for the duration of a test.
class StdoutToPipe {
 public:
  StdoutToPipe() {
    EXPECT_EQ(pipe(fds_), 0);
    saved_ = dup(STDOUT_FILENO);
    dup2(fds_[1], STDOUT_FILENO);
    close(fds_[1]);
  }
  ~StdoutToPipe() {
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
    if (fds_[0] >= 0) close(fds_[0]);
  }
  std::string Read() {
    std::string out;
    char buf[256];
    fcntl(fds_[0], F_SETFL, O_NONBLOCK);
    ssize_t n;
    while ((n = read(fds_[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
  }
  void CloseReadEnd() {
    close(fds_[0]);
    fds_[0] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
  int saved_ = -1;
};

TEST(OutputCaptureTest, ForwardWritesKeptBytesOnly) {
  StdoutToPipe redirect;
  OutputCapture c(4, /*forward_fds=*/true);
  c.Append(OutputStream::kStdout, "ab");
  c.Append(OutputStream::kStdout, "cdef");
  EXPECT_EQ(redirect.Read(), "abcd");
  EXPECT_EQ(c.kept(OutputStream::kStdout), "");  // forwarded, not stored
  EXPECT_TRUE(c.truncated(OutputStream::kStdout));
}

TEST(OutputCaptureTest, ForwardSurvivesClosedStdout) {
  signal(SIGPIPE, SIG_IGN);
  StdoutToPipe redirect;
  redirect.CloseReadEnd();
  OutputCapture c(1 << 20, true);
  c.Append(OutputStream::kStdout, "lost");
  c.Append(OutputStream::kStdout, "lost too");
  EXPECT_FALSE(c.truncated(OutputStream::kStdout));
  signal(SIGPIPE, SIG_DFL);
}

}  // namespace
}  // namespace agentbox
