// The registry client's pure part: where an absolute URL (a token realm) sends a request.
#include "registry/registry_client.h"

#include <gtest/gtest.h>

namespace agentbox::registry {
namespace {

TEST(RegistryClient, TargetForUrlSplitsOriginAndPath) {
  std::string path;
  auto t = TargetForUrl("https://auth.example.com:8443/token?x=1", &path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->base_url, "https://auth.example.com:8443");
  EXPECT_EQ(t->peer, "auth.example.com:8443");
  EXPECT_TRUE(t->unix_socket.empty());
  EXPECT_EQ(path, "/token?x=1");
  t = TargetForUrl("http://127.0.0.1:5001", &path);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->base_url, "http://127.0.0.1:5001");
  EXPECT_EQ(path, "/");
  t = TargetForUrl("https://h?service=r", &path);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->base_url, "https://h");
  EXPECT_EQ(path, "/?service=r");
}

TEST(RegistryClient, TargetForUrlRefusesOtherSchemes) {
  std::string path;
  EXPECT_EQ(TargetForUrl("file:///etc/passwd", &path).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(TargetForUrl("auth.example.com/token", &path).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace agentbox::registry
