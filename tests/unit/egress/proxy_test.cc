// The proxy's event loop end to end on this process's loopback: no namespaces, no root. A proxy
// thread serves one exec (a connected control socket, as `run` uses); the tests are its client.
#include "egress/proxy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "proto/exec_result.h"
#include "sys/fd_passing.h"

namespace agentbox::egress {
namespace {

UniqueFd Listen(uint16_t* port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(::listen(fd.get(), 64), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

UniqueFd Connect(uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  return fd;
}

// Everything the peer sends until it closes (or 5 s pass).
std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  struct pollfd p = {fd, POLLIN, 0};
  while (::poll(&p, 1, 5000) == 1) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string ReadSome(int fd) {
  char buf[4096];
  struct pollfd p = {fd, POLLIN, 0};
  if (::poll(&p, 1, 5000) != 1) return "";
  ssize_t n = ::read(fd, buf, sizeof(buf));
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

class ProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    upstream_ = Listen(&upstream_port_);
    upstream_thread_ = std::thread([this] {
      // Answers every connection with "hello " plus what it read first, then closes.
      for (;;) {
        int c = ::accept(upstream_.get(), nullptr, nullptr);
        if (c < 0) return;
        std::string reply = "hello " + ReadSome(c);
        ssize_t ignored = ::write(c, reply.data(), reply.size());
        (void)ignored;
        ::close(c);
      }
    });
  }

  void Start(std::vector<std::string> patterns) {
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
    control_.reset(pair[0]);
    auto rules = EgressRules::FromPatterns(patterns);
    ASSERT_TRUE(rules.ok());
    proxy_thread_ = std::thread([rules = *rules, fd = pair[1]]() mutable {
      Proxy proxy(std::move(rules), ProxyLimits{});
      (void)proxy.Run(UniqueFd(fd), false, -1);
    });
    UniqueFd listener = Listen(&proxy_port_);
    ASSERT_EQ(sys::SendWithFd(control_.get(), "open", 4, listener.get()), 4);
  }

  // Sends `request` to the proxy; returns the connection.
  UniqueFd Ask(const std::string& request) {
    UniqueFd c = Connect(proxy_port_);
    EXPECT_EQ(::write(c.get(), request.data(), request.size()),
              static_cast<ssize_t>(request.size()));
    return c;
  }

  NetworkReport Finish() {
    EXPECT_EQ(::send(control_.get(), "finish", 6, 0), 6);
    std::string reply = ReadSome(control_.get());
    auto report = NetworkFromJson(nlohmann::json::parse(reply, nullptr, false));
    EXPECT_TRUE(report.ok()) << reply;
    return report.ok() ? *report : NetworkReport{};
  }

  void TearDown() override {
    control_.reset();
    if (proxy_thread_.joinable()) proxy_thread_.join();
    ::shutdown(upstream_.get(), SHUT_RDWR);
    if (upstream_thread_.joinable()) upstream_thread_.join();
  }

  std::string Target() { return "127.0.0.1:" + std::to_string(upstream_port_); }

  UniqueFd upstream_, control_;
  uint16_t upstream_port_ = 0, proxy_port_ = 0;
  std::thread upstream_thread_, proxy_thread_;
};

TEST_F(ProxyTest, ConnectToTheExactAddressRelaysBothWays) {
  Start({Target()});
  UniqueFd c = Ask("CONNECT " + Target() + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(ReadSome(c.get()), "HTTP/1.1 200 Connection established\r\n\r\n");
  ASSERT_EQ(::write(c.get(), "ping", 4), 4);
  EXPECT_EQ(ReadAll(c.get()), "hello ping");
  NetworkReport report = Finish();
  ASSERT_EQ(report.connections.size(), 1u);
  EXPECT_TRUE(report.connections[0].allowed);
  EXPECT_EQ(report.connections[0].address, "127.0.0.1");
  EXPECT_EQ(report.connections[0].bytes_sent, 4u);
  EXPECT_EQ(report.connections[0].bytes_received, 10u);
}

TEST_F(ProxyTest, PlainHttpGoesUpstreamInOriginForm) {
  Start({Target()});
  UniqueFd c =
      Ask("GET http://" + Target() + "/x HTTP/1.1\r\nProxy-Connection: keep-alive\r\n\r\n");
  const std::string answer = ReadAll(c.get());
  EXPECT_EQ(answer.rfind("hello GET /x HTTP/1.1\r\n", 0), 0u) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos);
  EXPECT_EQ(answer.find("Proxy-Connection"), std::string::npos);
}

TEST_F(ProxyTest, Socks5Connect) {
  Start({Target()});
  UniqueFd c = Ask(std::string("\x05\x01\x00", 3));
  EXPECT_EQ(ReadSome(c.get()), std::string("\x05\x00", 2));
  std::string req("\x05\x01\x00\x01\x7f\x00\x00\x01", 8);
  req += static_cast<char>(upstream_port_ >> 8);
  req += static_cast<char>(upstream_port_ & 0xff);
  ASSERT_EQ(::write(c.get(), req.data(), req.size()), static_cast<ssize_t>(req.size()));
  EXPECT_EQ(ReadSome(c.get()).substr(0, 2), std::string("\x05\x00", 2));
  ASSERT_EQ(::write(c.get(), "abc", 3), 3);
  EXPECT_EQ(ReadAll(c.get()), "hello abc");
}

TEST_F(ProxyTest, DeniedHostAndLoopbackByRangeAreRefusedAndReported) {
  Start({"127.0.0.0/8"});
  UniqueFd denied = Ask("CONNECT other.test:443 HTTP/1.1\r\n\r\n");
  EXPECT_NE(ReadAll(denied.get()).find("403 Forbidden"), std::string::npos);
  UniqueFd loopback = Ask("CONNECT " + Target() + " HTTP/1.1\r\n\r\n");
  EXPECT_NE(ReadAll(loopback.get()).find("loopback 127.0.0.1"), std::string::npos);
  NetworkReport report = Finish();
  ASSERT_EQ(report.connections.size(), 2u);
  EXPECT_FALSE(report.connections[0].allowed);
  EXPECT_EQ(report.connections[0].reason, kNotOnTheList);
  EXPECT_FALSE(report.connections[1].allowed);
  EXPECT_EQ(report.connections[1].reason, "loopback 127.0.0.1");
}

}  // namespace
}  // namespace agentbox::egress
