// The Docker Engine API client's pure parts: version negotiation, error messages, encoding.
// (Endpoints: docker_endpoint_test.cc; HTTP itself is libcurl's: tests/unit/httpclient.)
#include <gtest/gtest.h>

#include "docker/engine_client.h"

namespace agentbox::docker {
namespace {

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

TEST(DockerHttpTest, ErrorMessageIsTheDaemonsOrTheStatus) {
  EXPECT_EQ(ErrorMessage({404, {}, R"({"message":"no such image"})"}), "no such image");
  EXPECT_EQ(ErrorMessage({502, {}, "<html>"}), "HTTP 502");
}

TEST(DockerHttpTest, UrlEncodes) {
  EXPECT_EQ(UrlEncode("a b/c:d=e"), "a%20b%2Fc%3Ad%3De");
  EXPECT_EQ(UrlEncode("agentbox-test_1.0~"), "agentbox-test_1.0~");
}

}  // namespace
}  // namespace agentbox::docker
