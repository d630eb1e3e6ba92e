// The TCP agent's gate: a connection reaches a handler only after a hello with the right token;
// a wrong one is answered permission_denied and closed, a silent one is closed in bounded time,
// and nothing a refused connection sent after its hello is ever read, let alone answered.
#include "agent/hello_gate.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

constexpr const char* kToken = "the-sandbox-token-0123456789";

struct Conn {
  UniqueFd client;  // the host's end
  int agent;        // the gate's end (owned by the gate)
};

Conn Connect(HelloGate& gate, time_t now = 100) {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  gate.Add(UniqueFd(sv[1]), now);
  return {UniqueFd(sv[0]), sv[1]};
}

// Feeds the gate until it decides (a connection back, or this one gone from it).
UniqueFd Drive(HelloGate& gate, int agent_fd, HelloTarget* target = nullptr) {
  HelloTarget ignored;
  for (int i = 0; i < 1000; ++i) {
    const auto fds = gate.fds();
    if (std::find(fds.begin(), fds.end(), agent_fd) == fds.end()) return UniqueFd();
    struct pollfd p = {agent_fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) != 1) return UniqueFd();
    UniqueFd conn = gate.OnReadable(agent_fd, target ? target : &ignored);
    if (conn.valid()) return conn;
  }
  return UniqueFd();
}

// The agent closed its end: EOF, or a reset where it closed with bytes of ours unread.
bool ClosedByAgent(int client) {
  char byte;
  const ssize_t n = ::recv(client, &byte, 1, 0);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

TEST(HelloGate, TheRightTokenOpensTheConnection) {
  HelloGate gate(kToken);
  Conn c = Connect(gate);
  ASSERT_TRUE(WriteFrame(c.client.get(), FrameType::kRequest, HelloRequestToWire(kToken)).ok());
  // The request right behind it is the handler's to read: the gate reads no byte past the hello.
  ASSERT_TRUE(WriteFrame(c.client.get(), FrameType::kRequest, R"({"op":"ping"})").ok());
  UniqueFd conn = Drive(gate, c.agent);
  ASSERT_TRUE(conn.valid());
  EXPECT_TRUE(gate.fds().empty());
  auto answer = ReadFrame(c.client.get());
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->type, FrameType::kResponse);
  EXPECT_TRUE(nlohmann::json::parse(answer->payload).value("ok", false));
  auto request = ReadFrame(conn.get());
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request->payload, R"({"op":"ping"})");
}

TEST(HelloGate, AnEgressRelayHelloIsToldApartAndNotReadPast) {
  HelloGate gate(kToken, /*egress_relay=*/true);
  Conn c = Connect(gate);
  ASSERT_TRUE(WriteFrame(c.client.get(), FrameType::kRequest,
                         HelloRequestToWire(kToken, HelloTarget::kEgressRelay))
                  .ok());
  ASSERT_EQ(::send(c.client.get(), "listen\n", 7, 0), 7);  // the relay's line, not the gate's
  HelloTarget target = HelloTarget::kAgent;
  UniqueFd conn = Drive(gate, c.agent, &target);
  ASSERT_TRUE(conn.valid());
  EXPECT_EQ(target, HelloTarget::kEgressRelay);
  auto answer = ReadFrame(c.client.get());
  ASSERT_TRUE(answer.ok());
  EXPECT_TRUE(nlohmann::json::parse(answer->payload).value("ok", false));
  char line[16] = {};
  EXPECT_EQ(::recv(conn.get(), line, sizeof(line), 0), 7);
  EXPECT_STREQ(line, "listen\n");
}

TEST(HelloGate, AnEgressRelayHelloNeedsTheToken) {
  HelloGate gate(kToken, /*egress_relay=*/true);
  Conn c = Connect(gate);
  ASSERT_TRUE(
      WriteFrame(c.client.get(), FrameType::kRequest,
                 HelloRequestToWire("the-sandbox-token-0123456788", HelloTarget::kEgressRelay))
          .ok());
  EXPECT_FALSE(Drive(gate, c.agent).valid());
  auto answer = ReadFrame(c.client.get());
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(nlohmann::json::parse(answer->payload).value("code", ""), "permission_denied");
  EXPECT_TRUE(gate.fds().empty());
}

TEST(HelloGate, AnEgressRelayHelloWithoutARelayIsRefused) {
  HelloGate gate(kToken);
  Conn c = Connect(gate);
  ASSERT_TRUE(WriteFrame(c.client.get(), FrameType::kRequest,
                         HelloRequestToWire(kToken, HelloTarget::kEgressRelay))
                  .ok());
  EXPECT_FALSE(Drive(gate, c.agent).valid());
  auto answer = ReadFrame(c.client.get());
  ASSERT_TRUE(answer.ok());
  auto body = nlohmann::json::parse(answer->payload);
  EXPECT_FALSE(body.value("ok", true));
  EXPECT_EQ(body.value("code", ""), "unavailable");
}

TEST(HelloGate, AHelloInPiecesIsWaitedFor) {
  HelloGate gate(kToken);
  Conn c = Connect(gate);
  std::string frame;
  AppendFrame(FrameType::kRequest, HelloRequestToWire(kToken), &frame);
  for (size_t i = 0; i < frame.size(); ++i) {
    ASSERT_EQ(::send(c.client.get(), &frame[i], 1, 0), 1);
    struct pollfd p = {c.agent, POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 5000), 1);
    HelloTarget target;
    UniqueFd conn = gate.OnReadable(c.agent, &target);
    ASSERT_EQ(conn.valid(), i + 1 == frame.size()) << "after byte " << i;
  }
}

TEST(HelloGate, AWrongTokenIsRefusedAndNothingElseIsAnswered) {
  HelloGate gate(kToken);
  Conn c = Connect(gate);
  ASSERT_TRUE(WriteFrame(c.client.get(), FrameType::kRequest,
                         HelloRequestToWire("the-sandbox-token-0123456788"))
                  .ok());
  ASSERT_TRUE(WriteFrame(c.client.get(), FrameType::kRequest, R"({"op":"ping"})").ok());
  EXPECT_FALSE(Drive(gate, c.agent).valid());
  auto answer = ReadFrame(c.client.get());
  ASSERT_TRUE(answer.ok());
  auto body = nlohmann::json::parse(answer->payload);
  EXPECT_FALSE(body.value("ok", true));
  EXPECT_EQ(body.value("code", ""), "permission_denied");
  EXPECT_FALSE(ReadFrame(c.client.get()).ok());  // closed: the ping got no answer
  EXPECT_TRUE(gate.fds().empty());
}

TEST(HelloGate, ARequestInsteadOfAHelloIsClosedUnanswered) {
  HelloGate gate(kToken);
  Conn c = Connect(gate);
  ASSERT_TRUE(WriteFrame(c.client.get(), FrameType::kRequest, R"({"op":"ping"})").ok());
  EXPECT_FALSE(Drive(gate, c.agent).valid());
  EXPECT_TRUE(ClosedByAgent(c.client.get()));
}

TEST(HelloGate, AnOversizedOrForeignFirstFrameIsClosedUnread) {
  for (FrameType type : {FrameType::kData, FrameType::kRequest}) {
    HelloGate gate(kToken);
    Conn c = Connect(gate);
    const size_t size = type == FrameType::kData ? 10 : kMaxHelloPayload + 1;
    ASSERT_TRUE(WriteFrame(c.client.get(), type, std::string(size, 'x')).ok());
    EXPECT_FALSE(Drive(gate, c.agent).valid());
    EXPECT_TRUE(ClosedByAgent(c.client.get()));
  }
}

TEST(HelloGate, ASilentConnectionIsClosedAfterTheTimeout) {
  HelloGate gate(kToken);
  Conn c = Connect(gate, 100);
  gate.Expire(100 + kHelloTimeoutSeconds - 1);
  EXPECT_EQ(gate.fds().size(), 1u);
  gate.Expire(100 + kHelloTimeoutSeconds);
  EXPECT_TRUE(gate.fds().empty());
  EXPECT_TRUE(ClosedByAgent(c.client.get()));
}

TEST(HelloGate, ManyWaitingConnectionsDropTheOldest) {
  HelloGate gate(kToken);
  std::vector<Conn> conns;
  for (size_t i = 0; i < kMaxPendingHellos + 10; ++i) conns.push_back(Connect(gate));
  EXPECT_EQ(gate.fds().size(), kMaxPendingHellos);
  EXPECT_TRUE(ClosedByAgent(conns.front().client.get()));
  // The newest still gets through.
  Conn& last = conns.back();
  ASSERT_TRUE(WriteFrame(last.client.get(), FrameType::kRequest, HelloRequestToWire(kToken)).ok());
  EXPECT_TRUE(Drive(gate, last.agent).valid());
}

TEST(HelloGate, AClientGoneBeforeItsHelloIsDropped) {
  HelloGate gate(kToken);
  Conn c = Connect(gate);
  c.client.reset();
  EXPECT_FALSE(Drive(gate, c.agent).valid());
  EXPECT_TRUE(gate.fds().empty());
}

// Sends one hello and returns the gate's answer (the connection is then the gate's to close).
nlohmann::json HelloAnswer(HelloGate& gate, const std::string& token, HelloTarget target,
                           UniqueFd* opened = nullptr) {
  Conn c = Connect(gate);
  EXPECT_TRUE(
      WriteFrame(c.client.get(), FrameType::kRequest, HelloRequestToWire(token, target)).ok());
  UniqueFd conn = Drive(gate, c.agent);
  if (opened) *opened = std::move(conn);
  auto answer = ReadFrame(c.client.get());
  if (!answer.ok()) return nlohmann::json::object();
  return nlohmann::json::parse(answer->payload);
}

TEST(HelloGate, AnUnclaimedAgentOpensNothingUntilItsClaim) {
  HelloGate gate("", /*egress_relay=*/false, /*token_by_claim=*/true);
  EXPECT_FALSE(gate.claimed());
  // No token opens it yet, not even the empty one it holds.
  for (const std::string& token : {std::string(""), std::string(kToken)}) {
    UniqueFd opened;
    auto body = HelloAnswer(gate, token, HelloTarget::kAgent, &opened);
    EXPECT_FALSE(opened.valid());
    EXPECT_EQ(body.value("code", ""), "permission_denied");
  }
  // A claim with a token too short to be one is refused, and claims nothing.
  EXPECT_EQ(HelloAnswer(gate, "short", HelloTarget::kClaim).value("code", ""), "invalid_argument");
  EXPECT_FALSE(gate.claimed());
  UniqueFd opened;
  EXPECT_TRUE(HelloAnswer(gate, kToken, HelloTarget::kClaim, &opened).value("ok", false));
  EXPECT_FALSE(opened.valid());  // the claim's connection carries nothing more
  EXPECT_TRUE(gate.claimed());
  // Then the claimed token is the gate's, as with --token-file.
  EXPECT_TRUE(HelloAnswer(gate, kToken, HelloTarget::kAgent, &opened).value("ok", false));
  EXPECT_TRUE(opened.valid());
  EXPECT_EQ(
      HelloAnswer(gate, "the-sandbox-token-0123456788", HelloTarget::kAgent).value("code", ""),
      "permission_denied");
  EXPECT_TRUE(gate.fds().empty());
}

TEST(HelloGate, ASecondClaimIsRefusedAndKeepsTheFirstToken) {
  HelloGate gate("", false, true);
  ASSERT_TRUE(HelloAnswer(gate, kToken, HelloTarget::kClaim).value("ok", false));
  const std::string other = "another-sandbox-token-987654321";
  EXPECT_EQ(HelloAnswer(gate, other, HelloTarget::kClaim).value("code", ""), "permission_denied");
  EXPECT_EQ(HelloAnswer(gate, other, HelloTarget::kAgent).value("code", ""), "permission_denied");
  EXPECT_TRUE(HelloAnswer(gate, kToken, HelloTarget::kAgent).value("ok", false));
}

TEST(HelloGate, AnAgentWithATokenFileRefusesEveryClaim) {
  HelloGate gate(kToken);
  EXPECT_EQ(
      HelloAnswer(gate, "another-sandbox-token-987654321", HelloTarget::kClaim).value("code", ""),
      "permission_denied");
  EXPECT_TRUE(HelloAnswer(gate, kToken, HelloTarget::kAgent).value("ok", false));
}

}  // namespace
}  // namespace agentbox
