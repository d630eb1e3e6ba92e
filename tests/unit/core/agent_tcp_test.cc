// The host's side of a TCP agent (kubernetes): ConnectAgent's hello, file operations and an exec
// with stdin over TCP, against an agent stand-in on 127.0.0.1 that puts every connection through
// the real gate (agent/hello_gate.h) and serves file requests with the real handler.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "agent/file_ops.h"
#include "agent/hello_gate.h"
#include "core/agent_client.h"
#include "core/agent_exec.h"
#include "core/agent_files.h"
#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"
#include "proto/exec_wire.h"

namespace agentbox {
namespace {

namespace fs = std::filesystem;
constexpr const char* kToken = "per-sandbox-token-for-this-test";

// Echoes an exec's stdin frames back as stdout, one frame for one frame, as they arrive: a host
// that wrote all of its stdin before reading would stall once both socket buffers are full.
void EchoExec(int conn, const Frame& request) {
  auto exec = ExecRequestFromWire(request.payload);
  if (!exec.ok() || !exec->stdin_frames) {
    (void)WriteFrame(conn, FrameType::kResponse, R"({"ok":false,"code":"invalid_argument"})");
    return;
  }
  for (;;) {
    auto frame = ReadFrame(conn);
    if (!frame.ok() || frame->type != FrameType::kData || frame->payload.empty()) break;
    if (!WriteFrame(conn, FrameType::kStdout, frame->payload).ok()) return;
  }
  ExecResult result;
  result.exit_code = 0;
  std::string body = ExecResultToWire(result);
  (void)WriteFrame(conn, FrameType::kResponse, body);
}

class AgentTcpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agentbox-tcp-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    ws_ = tmpl;
    ws_fd_ = UniqueFd(::open(ws_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(Listen(ipv6_)) << "no loopback to listen on";
    server_ = std::thread([this] { Serve(); });
  }
  void TearDown() override {
    stop_ = true;
    ::shutdown(listen_.get(), SHUT_RDWR);
    server_.join();
    fs::remove_all(ws_);
  }

  // 127.0.0.1 or ::1, on a port the kernel picks; endpoint_ names it.
  bool Listen(bool ipv6) {
    listen_ = UniqueFd(::socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    struct sockaddr_storage ss = {};
    auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
    if (ipv6) {
      v6->sin6_family = AF_INET6;
      v6->sin6_addr = in6addr_loopback;
    } else {
      v4->sin_family = AF_INET;
      v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    socklen_t len = ipv6 ? sizeof(*v6) : sizeof(*v4);
    if (::bind(listen_.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0 ||
        ::listen(listen_.get(), 16) != 0 ||
        ::getsockname(listen_.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
      return false;
    }
    const int port = ntohs(ipv6 ? v6->sin6_port : v4->sin_port);
    endpoint_ = {std::string("tcp:") + (ipv6 ? "[::1]:" : "127.0.0.1:") + std::to_string(port),
                 kToken};
    return true;
  }

  // One connection at a time: the gate, then one request.
  void Serve() {
    HelloGate gate(kToken);
    while (!stop_) {
      UniqueFd conn(::accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!conn.valid()) return;
      const int fd = conn.get();
      gate.Add(std::move(conn), HelloGate::MonotonicSeconds());
      UniqueFd open;
      while (!open.valid() && !gate.fds().empty()) {
        struct pollfd p = {fd, POLLIN, 0};
        if (::poll(&p, 1, 2000) != 1) {
          gate.Expire(HelloGate::MonotonicSeconds() + kHelloTimeoutSeconds);
          break;
        }
        HelloTarget target;
        open = gate.OnReadable(fd, &target);
      }
      if (!open.valid()) continue;
      auto frame = ReadFrame(open.get());
      if (!frame.ok()) continue;
      ++served_;
      auto request = nlohmann::json::parse(frame->payload, nullptr, false);
      if (request.value("op", "") == "exec") {
        EchoExec(open.get(), *frame);
      } else {
        HandleFileRequest(open.get(), request, ws_fd_.get());
      }
    }
  }

  bool ipv6_ = false;
  fs::path ws_;
  UniqueFd ws_fd_, listen_;
  AgentEndpoint endpoint_;
  std::thread server_;
  std::atomic<bool> stop_{false};
  std::atomic<int> served_{0};
};

TEST_F(AgentTcpTest, FileOperationsWorkOverTcp) {
  ASSERT_TRUE(AgentWriteFile(endpoint_, "dir/a.txt", "over tcp\n", 0644, true).ok());
  auto data = AgentReadFile(endpoint_, "/workspace/dir/a.txt");
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(*data, "over tcp\n");
  auto entries = AgentListDir(endpoint_, "dir");
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].name, "a.txt");
  ASSERT_TRUE(AgentStrReplace(endpoint_, "dir/a.txt", "tcp", "TCP").ok());
  EXPECT_EQ(*AgentReadFile(endpoint_, "dir/a.txt"), "over TCP\n");
  ASSERT_TRUE(AgentRemove(endpoint_, "dir", true).ok());
  EXPECT_FALSE(fs::exists(ws_ / "dir"));
}

TEST_F(AgentTcpTest, ExecStreamsStdinAsFrames) {
  char tmpl[] = "/tmp/agentbox-tcp-stdin-XXXXXX";
  UniqueFd input(::mkstemp(tmpl));
  ASSERT_TRUE(input.valid());
  ::unlink(tmpl);
  std::string sent;
  for (int i = 0; sent.size() < 8 * 1024 * 1024; ++i) sent += "line " + std::to_string(i) + "\n";
  ASSERT_EQ(::write(input.get(), sent.data(), sent.size()), static_cast<ssize_t>(sent.size()));
  ASSERT_EQ(::lseek(input.get(), 0, SEEK_SET), 0);
  ExecRequest request;
  request.argv = {"cat"};
  request.pass_stdin = true;
  request.output_limit = 16 * 1024 * 1024;
  std::string out;
  OutputCapture capture(request.output_limit,
                        [&](OutputStream, std::string_view d) { out.append(d); });
  auto result = AgentExec(endpoint_, request, capture, input.get());
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(out.size(), sent.size());
  EXPECT_TRUE(out == sent);
}

TEST_F(AgentTcpTest, AWrongTokenGetsNoAnswer) {
  AgentEndpoint wrong = endpoint_;
  wrong.token = "per-sandbox-token-for-another";
  auto conn = ConnectAgent(wrong);
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().code(), StatusCode::kPermissionDenied) << conn.status().message();
  auto data = AgentReadFile(wrong, "anything");
  EXPECT_EQ(data.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(served_.load(), 0);
}

class AgentTcp6Test : public AgentTcpTest {
 protected:
  void SetUp() override {
    UniqueFd probe(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
    struct sockaddr_in6 a = {};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_loopback;
    if (!probe.valid() || ::bind(probe.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      GTEST_SKIP() << "no IPv6 loopback here";
    }
    ipv6_ = true;
    AgentTcpTest::SetUp();
  }
  void TearDown() override {
    if (ipv6_) AgentTcpTest::TearDown();
  }
};

TEST_F(AgentTcp6Test, AnIpv6LiteralIsReached) {
  EXPECT_EQ(endpoint_.address.rfind("tcp:[::1]:", 0), 0u);
  ASSERT_TRUE(AgentWriteFile(endpoint_, "v6.txt", "over ipv6", 0644, false).ok());
  EXPECT_EQ(*AgentReadFile(endpoint_, "v6.txt"), "over ipv6");
}

TEST_F(AgentTcpTest, NothingListeningIsUnavailable) {
  AgentEndpoint closed = {"tcp:127.0.0.1:1", kToken};
  EXPECT_EQ(ConnectAgent(closed).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(ConnectAgent({"tcp:not-an-ip:7070", kToken}).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace agentbox
