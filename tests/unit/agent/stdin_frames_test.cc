// An exec's stdin as frames: what the client sends reaches the command's stdin, an empty frame
// is its EOF, and the client hanging up is told to the supervision.
#include "agent/stdin_frames.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

std::string ReadAll(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) out.append(buffer, static_cast<size_t>(n));
  return out;
}

TEST(StdinFrames, DataFramesAreTheCommandsStdinAndAnEmptyOneItsEnd) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  UniqueFd client(sv[0]), conn(sv[1]);
  auto frames = StdinFrames::Open();
  ASSERT_TRUE(frames.ok());
  UniqueFd command_stdin(::dup((*frames)->command_stdin()));  // what the command would hold
  auto gone = (*frames)->Serve(conn.get());
  ASSERT_TRUE(gone.ok());
  const std::string big(300 * 1024, 'x');  // more than a pipe holds: written as it is read
  ASSERT_TRUE(WriteFrame(client.get(), FrameType::kData, "hello ").ok());
  ASSERT_TRUE(WriteFrame(client.get(), FrameType::kData, big).ok());
  ASSERT_TRUE(WriteFrame(client.get(), FrameType::kData, "").ok());
  EXPECT_EQ(ReadAll(command_stdin.get()), "hello " + big);
  // The client is still there: the supervision is not told otherwise.
  struct pollfd p = {*gone, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 50), 0);
  client.reset();
  EXPECT_EQ(::poll(&p, 1, 5000), 1);
}

TEST(StdinFrames, InputNobodyReadsIsDroppedNotWaitedFor) {
  // As in the agent (RunAgent): a write to a pipe nobody reads is EPIPE, not a SIGPIPE.
  auto old = ::signal(SIGPIPE, SIG_IGN);
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  UniqueFd client(sv[0]), conn(sv[1]);
  auto frames = StdinFrames::Open();
  ASSERT_TRUE(frames.ok());
  ASSERT_TRUE((*frames)->Serve(conn.get()).ok());  // the only read end closed: EPIPE
  ASSERT_TRUE(WriteFrame(client.get(), FrameType::kData, std::string(200 * 1024, 'y')).ok());
  ASSERT_TRUE(WriteFrame(client.get(), FrameType::kData, "").ok());
  frames->reset();  // joins the thread: it must not be stuck on the pipe
  ::signal(SIGPIPE, old);
}

}  // namespace
}  // namespace agentbox
