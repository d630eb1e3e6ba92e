#include "proto/agent_protocol.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "sys/unique_fd.h"

namespace agentbox {
namespace {

struct Pair {
  UniqueFd a, b;
};

Pair SocketPair() {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Either end of the agent protocol may be hostile (a box's agent, a process posing as the
// host): a request or response nested deeper than base/json_limits.h allows is refused by
// ReadFrame, before any parser builds its tree (issue #12, point 4).
TEST(AgentProtocolTest, DeeplyNestedRequestsAndResponsesAreRefused) {
  const std::string deep =
      "{\"op\":\"exec\",\"argv\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  for (FrameType type : {FrameType::kRequest, FrameType::kResponse}) {
    Pair p = SocketPair();
    std::thread writer([&] { ASSERT_TRUE(WriteFrame(p.a.get(), type, deep).ok()); });
    auto frame = ReadFrame(p.b.get());
    writer.join();
    ASSERT_FALSE(frame.ok());
    EXPECT_EQ(frame.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(frame.status().message().find("nested deeper"), std::string::npos);
  }
  // Output and data frames carry bytes, not JSON: never parsed, never refused for brackets.
  Pair p = SocketPair();
  std::thread writer([&] { ASSERT_TRUE(WriteFrame(p.a.get(), FrameType::kStdout, deep).ok()); });
  auto frame = ReadFrame(p.b.get());
  writer.join();
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(frame->payload, deep);
}

TEST(AgentProtocolTest, OrdinaryFramesReadBack) {
  Pair p = SocketPair();
  ASSERT_TRUE(WriteFrame(p.a.get(), FrameType::kRequest, R"({"op":"ping"})").ok());
  auto frame = ReadFrame(p.b.get());
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(frame->payload, R"({"op":"ping"})");
}

}  // namespace
}  // namespace agentbox
