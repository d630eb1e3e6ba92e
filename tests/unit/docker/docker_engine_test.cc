// The Docker Engine API client's pure parts: endpoints, version negotiation, HTTP framing.
#include <gtest/gtest.h>

#include "docker/docker_http.h"
#include "docker/engine_client.h"

namespace agentbox::docker {
namespace {

TEST(DockerEndpointTest, DefaultUnixAndTcp) {
  auto def = ParseEndpoint("");
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(def->kind, Endpoint::Kind::kUnix);
  EXPECT_EQ(def->path, "/var/run/docker.sock");

  auto unix_ep = ParseEndpoint("unix:///run/user/1000/docker.sock");
  ASSERT_TRUE(unix_ep.ok());
  EXPECT_EQ(unix_ep->path, "/run/user/1000/docker.sock");

  auto tcp = ParseEndpoint("tcp://127.0.0.1:2375");
  ASSERT_TRUE(tcp.ok());
  EXPECT_EQ(tcp->kind, Endpoint::Kind::kTcp);
  EXPECT_EQ(tcp->host, "127.0.0.1");
  EXPECT_EQ(tcp->port, "2375");

  auto v6 = ParseEndpoint("tcp://[::1]:2375");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
}

TEST(DockerEndpointTest, RejectsWhatItCannotSpeak) {
  EXPECT_FALSE(ParseEndpoint("ssh://host").ok());
  EXPECT_FALSE(ParseEndpoint("unix://relative.sock").ok());
  EXPECT_FALSE(ParseEndpoint("tcp://hostonly").ok());
  EXPECT_FALSE(ParseEndpoint("tcp://127.0.0.1:0").ok());
  EXPECT_FALSE(ParseEndpoint("tcp://127.0.0.1:http").ok());
  EXPECT_FALSE(ParseEndpoint("npipe:////./pipe/docker_engine").ok());
}

TEST(DockerVersionTest, Negotiates) {
  // Debian 12's docker.io.
  EXPECT_EQ(NegotiateApiVersion("1.41", "1.12").value(), "1.41");
  // Current engines: capped at the newest we speak, above their minimum.
  EXPECT_EQ(NegotiateApiVersion("1.51", "1.44").value(), std::string(kNewestApiVersion));
  EXPECT_EQ(NegotiateApiVersion("1.44", "1.24").value(), "1.44");
  // Too old, or a minimum above what we speak.
  EXPECT_EQ(NegotiateApiVersion("1.40", "1.12").status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(NegotiateApiVersion("1.60", "1.50").status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(NegotiateApiVersion("", "").ok());
}

TEST(DockerHttpTest, BuildsRequests) {
  EXPECT_EQ(BuildHttpRequest("GET", "/v1.41/version", "", ""),
            "GET /v1.41/version HTTP/1.1\r\nHost: docker\r\nUser-Agent: agentbox\r\n"
            "Connection: close\r\n\r\n");
  std::string post = BuildHttpRequest("POST", "/x", "application/json", "{}");
  EXPECT_NE(post.find("Content-Length: 2\r\n"), std::string::npos);
  EXPECT_EQ(post.substr(post.size() - 6), "\r\n\r\n{}");
}

TEST(DockerHttpTest, ParsesContentLengthChunkedAndClose) {
  auto plain = ParseHttpResponse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->status, 200);
  EXPECT_EQ(plain->body, "hello");

  auto chunked = ParseHttpResponse(
      "HTTP/1.1 201 Created\r\nTransfer-Encoding: "
      "chunked\r\n\r\n4\r\nWiki\r\n5;x=y\r\npedia\r\n0\r\n\r\n");
  ASSERT_TRUE(chunked.ok());
  EXPECT_EQ(chunked->status, 201);
  EXPECT_EQ(chunked->body, "Wikipedia");

  auto closed =
      ParseHttpResponse("HTTP/1.0 404 Not Found\r\nServer: x\r\n\r\n{\"message\":\"no\"}");
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(closed->status, 404);
  EXPECT_EQ(ErrorMessage(*closed), "no");
  EXPECT_EQ(closed->headers.at("server"), "x");
}

TEST(DockerHttpTest, RejectsBrokenResponses) {
  EXPECT_FALSE(ParseHttpResponse("").ok());
  EXPECT_FALSE(ParseHttpResponse("garbage\r\n\r\n").ok());
  EXPECT_FALSE(ParseHttpResponse("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort").ok());
  EXPECT_FALSE(
      ParseHttpResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").ok());
  EXPECT_FALSE(
      ParseHttpResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nab").ok());
}

TEST(DockerHttpTest, UrlEncodes) {
  EXPECT_EQ(UrlEncode("a b/c:d=e"), "a%20b%2Fc%3Ad%3De");
  EXPECT_EQ(UrlEncode("agentbox-test_1.0~"), "agentbox-test_1.0~");
}

}  // namespace
}  // namespace agentbox::docker
