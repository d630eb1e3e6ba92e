#include "registry/registry_auth.h"

#include <gtest/gtest.h>

namespace agentbox::registry {
namespace {

TEST(RegistryAuth, BearerChallenge) {
  auto c = ParseChallenge(
      R"(Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push")");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->scheme, "bearer");
  EXPECT_EQ(c->params["realm"], "https://auth.example/token");
  EXPECT_EQ(c->params["scope"], "repository:a/b:pull,push");
  EXPECT_FALSE(ParseChallenge("Bearer service=\"x\"").ok());
  EXPECT_FALSE(ParseChallenge("Negotiate abc").ok());
  EXPECT_FALSE(ParseChallenge("Bearer realm=\"unterminated").ok());
  auto basic = ParseChallenge("Basic realm=\"x\"");
  ASSERT_TRUE(basic.ok());
  EXPECT_EQ(basic->scheme, "basic");
}

TEST(RegistryAuth, DockerConfigCredentials) {
  // "tester:secret"
  std::string config = R"({"auths":{"https://127.0.0.1:5000/v1/":{"auth":"dGVzdGVyOnNlY3JldA=="},
                                    "other:1":{"username":"u","password":"p"}}})";
  auto c = CredentialsFromDockerConfig(config, "127.0.0.1:5000");
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->has_value());
  EXPECT_EQ((*c)->username, "tester");
  EXPECT_EQ((*c)->password, "secret");
  EXPECT_EQ(BasicAuthorization(**c), "Basic dGVzdGVyOnNlY3JldA==");
  auto other = CredentialsFromDockerConfig(config, "other:1");
  ASSERT_TRUE(other.ok() && other->has_value());
  EXPECT_EQ((*other)->password, "p");
  auto none = CredentialsFromDockerConfig(config, "elsewhere");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_FALSE(CredentialsFromDockerConfig(R"({"auths":{"x":{"auth":"!!"}}})", "x").ok());
}

}  // namespace
}  // namespace agentbox::registry
