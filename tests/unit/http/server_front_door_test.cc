#include <gtest/gtest.h>

#include <string>

#include "http/front_door.h"

namespace agentbox {
namespace {

HttpRequest Head(const std::string& text) {
  auto req = ParseRequestHead(text + "\r\n");
  EXPECT_TRUE(req.ok()) << req.status().message();
  return req.ok() ? *req : HttpRequest{};
}

const Route& RouteOf(const char* method, const char* path) {
  auto match = MatchRoute(method, path);
  EXPECT_TRUE(match.ok());
  return *match->route;
}

constexpr FrontDoorPolicy kLoopbackTcp{.tokens_required = false, .unix_socket = false};
constexpr FrontDoorPolicy kUnix{.tokens_required = false, .unix_socket = true};
constexpr FrontDoorPolicy kTokens{.tokens_required = true, .unix_socket = false};

int StatusOf(const std::string& head, const FrontDoorPolicy& policy, const char* method = "POST",
             const char* path = "/v1/sandboxes") {
  auto refusal = CheckFrontDoor(Head(head), RouteOf(method, path), policy);
  return refusal ? refusal->http_status : 0;
}

TEST(FrontDoorTest, OriginMustBeLoopbackWithoutTokens) {
  for (const char* ok : {"", "http://localhost:6274", "http://127.0.0.1", "https://127.1.2.3:9",
                         "http://[::1]:8080", "http://LOCALHOST"}) {
    EXPECT_TRUE(CheckOrigin(ok, false).ok()) << ok;
  }
  for (const char* bad : {"http://evil.example:8080", "null", "http://localhost.evil.example",
                          "http://10.0.0.1", "http://[::2]", "localhost", "http://[::1"}) {
    EXPECT_EQ(CheckOrigin(bad, false).code(), StatusCode::kPermissionDenied) << bad;
    EXPECT_TRUE(CheckOrigin(bad, true).ok()) << bad;  // a token protects instead
  }
}

TEST(FrontDoorTest, HostMustBeLoopbackOnTcpWithoutTokens) {
  const std::string get = "GET /v1/sandboxes HTTP/1.1\r\n";
  for (const char* ok : {"localhost", "localhost:8080", "127.0.0.1:1", "[::1]:9", "127.9.9.9"}) {
    EXPECT_EQ(StatusOf(get + "Host: " + ok + "\r\n", kLoopbackTcp, "GET"), 0) << ok;
  }
  // A rebound page sends its own name: refused on every route, /healthz and /mcp included.
  for (const char* path : {"/v1/sandboxes", "/healthz", "/mcp", "/metrics"}) {
    std::string head = std::string("GET ") + path + " HTTP/1.1\r\nHost: evil.example:8080\r\n";
    EXPECT_EQ(StatusOf(head, kLoopbackTcp, "GET", path), 403) << path;
    EXPECT_EQ(StatusOf(head, kUnix, "GET", path), 0) << path;    // no browser speaks unix
    EXPECT_EQ(StatusOf(head, kTokens, "GET", path), 0) << path;  // nor knows a token
  }
  for (const char* bad : {"[::1", "localhost.evil", "10.0.0.1:80", "0.0.0.0"}) {
    EXPECT_EQ(StatusOf(get + "Host: " + bad + "\r\n", kLoopbackTcp, "GET"), 403) << bad;
  }
  EXPECT_EQ(StatusOf(get, kUnix, "GET"), 400);  // HTTP/1.1 without Host
  EXPECT_EQ(StatusOf("GET /v1/sandboxes HTTP/1.0\r\n", kUnix, "GET"), 0);
}

TEST(FrontDoorTest, ForeignOriginIsRefusedOnEveryRoute) {
  const std::string head =
      "POST /v1/sandboxes HTTP/1.1\r\nHost: localhost\r\nOrigin: http://evil.example\r\n"
      "Content-Type: application/json\r\nContent-Length: 2\r\n";
  EXPECT_EQ(StatusOf(head, kUnix), 403);
  EXPECT_EQ(StatusOf(head, kLoopbackTcp), 403);
  EXPECT_EQ(StatusOf(head, kTokens), 0);
}

TEST(FrontDoorTest, BodiesMustBeJsonOrTheFileType) {
  const std::string post = "POST /v1/sandboxes HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n";
  // What an HTML form or a no-preflight fetch() can send: refused before any handler runs.
  for (const char* bad : {"text/plain", "application/x-www-form-urlencoded",
                          "multipart/form-data; boundary=x", "application/jsonx", ""}) {
    std::string head = post + (*bad ? std::string("Content-Type: ") + bad + "\r\n" : "");
    EXPECT_EQ(StatusOf(head, kUnix), 415) << bad;
  }
  for (const char* ok : {"application/json", "Application/JSON; charset=utf-8"}) {
    EXPECT_EQ(StatusOf(post + "Content-Type: " + ok + "\r\n", kUnix), 0) << ok;
  }
  EXPECT_EQ(StatusOf("POST /v1/sandboxes HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                     "Transfer-Encoding: chunked\r\n",
                     kUnix),
            415);
  // No body: nothing to check (the handler answers 400 for a missing one).
  EXPECT_EQ(StatusOf("POST /v1/sandboxes HTTP/1.1\r\nHost: x\r\n", kUnix), 0);
  const std::string put =
      "PUT /v1/sandboxes/a/files?path=f HTTP/1.1\r\nHost: x\r\n"
      "Content-Length: 3\r\n";
  EXPECT_EQ(StatusOf(put, kUnix, "PUT", "/v1/sandboxes/a/files"), 0);  // curl -T sends none
  EXPECT_EQ(StatusOf(put + "Content-Type: application/octet-stream\r\n", kUnix, "PUT",
                     "/v1/sandboxes/a/files"),
            0);
  EXPECT_EQ(StatusOf(put + "Content-Type: text/plain\r\n", kUnix, "PUT", "/v1/sandboxes/a/files"),
            415);
  EXPECT_EQ(
      StatusOf("GET /v1/sandboxes HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n", kUnix, "GET"),
      400);  // a route without a body refuses one
}

TEST(FrontDoorTest, HostOfHostHeader) {
  EXPECT_EQ(HostOfHostHeader("localhost:8080"), "localhost");
  EXPECT_EQ(HostOfHostHeader("[::1]:80"), "::1");
  EXPECT_EQ(HostOfHostHeader("[::1]"), "::1");
  EXPECT_EQ(HostOfHostHeader("[::1]x"), "");
  // Only a port may follow the host: a look-alike with more after it is no host at all.
  EXPECT_EQ(HostOfHostHeader("127.0.0.1:19401@evil"), "");
  EXPECT_EQ(HostOfHostHeader("localhost:80/x"), "");
  EXPECT_EQ(HostOfHostHeader("[::1]:80@evil"), "");
  EXPECT_EQ(HostOfHostHeader("localhost:"), "localhost");
  EXPECT_EQ(HostOfHostHeader("[::1"), "");
}

}  // namespace
}  // namespace agentbox
