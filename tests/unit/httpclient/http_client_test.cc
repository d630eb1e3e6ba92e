// The libcurl client against a one-shot server on a unix socket in the test: what goes on the
// wire (chunked bodies both ways), what comes back, and every failure as one clear Status.
#include "httpclient/http_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "sys/file_util.h"
#include "sys/unique_fd.h"

namespace agentbox::httpclient {
namespace {

// Accepts one connection, reads the request up to `request_end` (what ends it on the wire),
// then answers with `response` (empty: never answers, until the client hangs up). On a unix
// socket, or with `tcp` on 127.0.0.1 at a port of its own (two of them are two origins).
class OneShotServer {
 public:
  OneShotServer(std::string request_end, std::string response, bool tcp = false)
      : request_end_(std::move(request_end)), response_(std::move(response)) {
    char templ[] = "/tmp/agentbox-httpc-XXXXXX";
    dir_ = ::mkdtemp(templ);
    path_ = dir_ + "/s.sock";
    if (tcp) {
      listener_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      struct sockaddr_in addr = {};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof(addr);
      EXPECT_EQ(::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
      EXPECT_EQ(::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&addr), &len), 0);
      port_ = ntohs(addr.sin_port);
    } else {
      listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
      struct sockaddr_un addr = {};
      addr.sun_family = AF_UNIX;
      std::strncpy(addr.sun_path, path_.c_str(), sizeof(addr.sun_path) - 1);
      EXPECT_EQ(::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    }
    EXPECT_EQ(::listen(listener_.get(), 1), 0);
    thread_ = std::thread([this] { Serve(); });
  }
  std::string Origin() const { return "http://127.0.0.1:" + std::to_string(port_); }
  ~OneShotServer() {
    ::shutdown(listener_.get(), SHUT_RDWR);
    thread_.join();
    RemoveTree(dir_);
  }

  HttpTarget Target() const {
    HttpTarget t;
    if (port_ == 0) t.unix_socket = path_;
    t.base_url = port_ == 0 ? "http://test" : Origin();
    t.peer = "the test server";
    return t;
  }
  // What the server read, once the client is done with it.
  const std::string& request() const { return request_; }

 private:
  void Serve() {
    UniqueFd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn.valid()) return;
    char buf[4096];
    while (request_.find(request_end_) == std::string::npos) {
      ssize_t n = ::read(conn.get(), buf, sizeof(buf));
      if (n <= 0) return;
      request_.append(buf, static_cast<size_t>(n));
    }
    if (response_.empty()) {
      while (::read(conn.get(), buf, sizeof(buf)) > 0) {  // hold it open until the client goes
      }
      return;
    }
    (void)!::write(conn.get(), response_.data(), response_.size());
  }

  std::string request_end_, response_, dir_, path_, request_;
  int port_ = 0;
  UniqueFd listener_;
  std::thread thread_;
};

TEST(HttpClientTest, ChunkedResponseAndHeaders) {
  OneShotServer server("\r\n\r\n",
                       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Thing: 1 \r\n\r\n"
                       "4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n");
  HttpRequest req;
  req.path = "/v1.41/version";
  auto r = Perform(server.Target(), req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "Wikipedia");
  EXPECT_EQ(r->headers.at("x-thing"), "1");
  EXPECT_EQ(server.request().rfind("GET /v1.41/version HTTP/1.1\r\n", 0), 0u) << server.request();
  EXPECT_NE(server.request().find("Host: test\r\n"), std::string::npos);
}

TEST(HttpClientTest, StreamedBodyGoesChunkedAndTheAnswerStreams) {
  OneShotServer server("0\r\n\r\n",
                       "HTTP/1.1 201 Created\r\nContent-Length: 12\r\n\r\n{\"a\":1}\n{}\n\n");
  std::string source = "first-second";
  size_t at = 0;
  HttpRequest req;
  req.method = "POST";
  req.path = "/upload";
  req.headers.push_back("Content-Type: application/x-tar");
  req.body_reader = [&](char* buf, size_t size) -> StatusOr<size_t> {
    size_t n = std::min<size_t>({size, 6, source.size() - at});
    std::memcpy(buf, source.data() + at, n);
    at += n;
    return n;
  };
  std::string streamed;
  req.on_body = [&](std::string_view piece) {
    streamed.append(piece);
    return OkStatus();
  };
  auto r = Perform(server.Target(), req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(streamed, "{\"a\":1}\n{}\n\n");
  EXPECT_EQ(r->body, "");
  const std::string& wire = server.request();
  EXPECT_NE(wire.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << wire;
  EXPECT_EQ(wire.find("Expect:"), std::string::npos) << wire;
  EXPECT_NE(wire.find("\r\n\r\n6\r\nfirst-\r\n6\r\nsecond\r\n0\r\n\r\n"), std::string::npos)
      << wire;
}

TEST(HttpClientTest, BodyReaderErrorAbortsTheExchange) {
  OneShotServer server("never", "");
  HttpRequest req;
  req.method = "POST";
  req.body_reader = [](char*, size_t) -> StatusOr<size_t> { return Internal("tar: disk gone"); };
  auto r = Perform(server.Target(), req);
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_EQ(r.status().message(), "tar: disk gone");
}

TEST(HttpClientTest, SilentServerTimesOut) {
  OneShotServer server("\r\n\r\n", "");
  HttpRequest req;
  req.timeout_ms = 300;
  auto r = Perform(server.Target(), req);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("the test server did not answer in time"), std::string::npos)
      << r.status().message();
}

TEST(HttpClientTest, StalledServerIsCutByTheStallTimeout) {
  OneShotServer server("\r\n\r\n", "");
  HttpRequest req;
  req.timeout_ms = 60000;
  req.stall_timeout_ms = 1000;
  auto r = Perform(server.Target(), req);
  EXPECT_NE(r.status().message().find("the test server sent nothing for 1 s"), std::string::npos)
      << r.status().message();
}

TEST(HttpClientTest, NobodyListening) {
  HttpTarget target;
  target.unix_socket = "/nonexistent/agentbox.sock";
  target.base_url = "http://test";
  target.peer = "the daemon at unix:///nonexistent/agentbox.sock";
  target.unreachable_hint = "; is it running?";
  auto r = Perform(target, HttpRequest{});
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message().rfind("cannot reach the daemon at unix:///nonexistent", 0), 0u)
      << r.status().message();
  EXPECT_NE(r.status().message().find("; is it running?"), std::string::npos);
}

TEST(HttpClientTest, CollectedBodyIsBounded) {
  OneShotServer server("\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789");
  HttpRequest req;
  req.max_body = 4;
  auto r = Perform(server.Target(), req);
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
}

TEST(HttpClientTest, RedirectIsFollowedWithoutTheCredentialsToAnotherOrigin) {
  OneShotServer cdn("\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nblob", true);
  OneShotServer registry("\r\n\r\n",
                         "HTTP/1.1 307 Temporary Redirect\r\nLocation: " + cdn.Origin() +
                             "/data?sig=1\r\nContent-Length: 5\r\n\r\nredir",
                         true);
  HttpRequest req;
  req.path = "/v2/x/blobs/sha256:1";
  req.headers.push_back("Authorization: Bearer secret");
  req.max_redirects = 3;
  req.redirect_to_http = true;
  std::string streamed;
  req.on_body = [&](std::string_view piece) {
    streamed.append(piece);
    return OkStatus();
  };
  auto r = Perform(registry.Target(), req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(streamed, "blob");  // the redirect's own body is neither streamed nor kept
  EXPECT_EQ(r->body, "");
  EXPECT_NE(registry.request().find("Authorization: Bearer secret"), std::string::npos);
  EXPECT_EQ(cdn.request().rfind("GET /data?sig=1 HTTP/1.1\r\n", 0), 0u) << cdn.request();
  EXPECT_EQ(cdn.request().find("Authorization"), std::string::npos) << cdn.request();
}

TEST(HttpClientTest, RedirectToPlainHttpIsRefusedUnlessAllowed) {
  OneShotServer registry("\r\n\r\n",
                         "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/x\r\n"
                         "Content-Length: 0\r\n\r\n",
                         true);
  HttpRequest req;
  req.max_redirects = 3;
  auto r = Perform(registry.Target(), req);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("redirected where agentbox does not follow"),
            std::string::npos)
      << r.status().message();
}

TEST(HttpClientTest, ErrorBodyIsCollectedNotStreamed) {
  OneShotServer server("\r\n\r\n",
                       "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"x\"\r\n"
                       "Content-Length: 6\r\n\r\ndenied");
  HttpRequest req;
  bool streamed = false;
  req.on_body = [&](std::string_view) {
    streamed = true;
    return OkStatus();
  };
  auto r = Perform(server.Target(), req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 401);
  EXPECT_FALSE(streamed);
  EXPECT_EQ(r->body, "denied");
  EXPECT_EQ(r->headers.at("www-authenticate"), "Bearer realm=\"x\"");
}

TEST(HttpClientTest, UrlEncodesQueryValues) {
  EXPECT_EQ(UrlEncode("repository:a/b:pull"), "repository%3Aa%2Fb%3Apull");
  EXPECT_EQ(UrlEncode("agentbox-test_1.0~"), "agentbox-test_1.0~");
}

TEST(HttpClientTest, HeaderLinesOfTheFinalResponseOnly) {
  HttpResponse r;
  TakeHeaderLine("HTTP/1.1 100 Continue\r\n", r);
  TakeHeaderLine("X-Interim: yes\r\n", r);
  TakeHeaderLine("HTTP/1.1 404 Not Found\r\n", r);
  TakeHeaderLine("Content-Type:  application/json \r\n", r);
  TakeHeaderLine("\r\n", r);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers.at("content-type"), "application/json");
}

}  // namespace
}  // namespace agentbox::httpclient
