#include "http/server_backends.h"

#include <gtest/gtest.h>

#include "http/server_config.h"

namespace agentbox {
namespace {

using nlohmann::json;

// Without a setting nothing changes for callers: a create naming no backend is native.
TEST(ServerBackendsTest, WithoutASettingTheDefaultIsNativeAndAnyMayBeAsked) {
  ServerConfig config;
  json policy = json::object();
  ASSERT_TRUE(ApplyServerDefaults(config, &policy).ok());
  EXPECT_EQ(policy["backend"], "native");
  for (const char* name : {"native", "docker", "kubernetes"}) {
    json asked = {{"backend", name}};
    ASSERT_TRUE(ApplyServerDefaults(config, &asked).ok()) << name;
    EXPECT_EQ(asked["backend"], name);
  }
  EXPECT_TRUE(config.backends.Check("--backend").ok());
}

TEST(ServerBackendsTest, TheConfigsDefaultFillsACreateThatNamesNone) {
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig(R"({"backend": "kubernetes"})", "c.json", &config).ok());
  EXPECT_EQ(config.backends.default_backend(), BackendKind::kKubernetes);
  json policy = {{"memory", "256M"}};
  ASSERT_TRUE(ApplyServerDefaults(config, &policy).ok());
  EXPECT_EQ(policy["backend"], "kubernetes");
  // A body's own choice stands when nothing restricts it.
  json docker = {{"backend", "docker"}};
  ASSERT_TRUE(ApplyServerDefaults(config, &docker).ok());
  EXPECT_EQ(docker["backend"], "docker");
}

TEST(ServerBackendsTest, AllowedBackendsRefuseTheOthers) {
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig(R"({"backend": "kubernetes", "allowed_backends": ["kubernetes"]})",
                                "c.json", &config)
                  .ok());
  EXPECT_TRUE(config.backends.Check("c.json: \"backend\"").ok());
  json native = {{"backend", "native"}};
  Status st = ApplyServerDefaults(config, &native);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "\"backend\": native is not allowed on this server (allowed_backends: kubernetes)");
  json none = json::object();
  ASSERT_TRUE(ApplyServerDefaults(config, &none).ok());
  EXPECT_EQ(none["backend"], "kubernetes");
}

// The default must be one the operator allows, wherever it came from.
TEST(ServerBackendsTest, ADefaultOutsideTheAllowedOnesIsRefusedNamingWhere) {
  ServerConfig config;
  ASSERT_TRUE(
      ParseServerConfig(R"({"allowed_backends": ["kubernetes", "docker"]})", "c.json", &config)
          .ok());
  EXPECT_EQ(config.backends.Check("c.json: \"backend\"").message(),
            "c.json: \"backend\": native is not one of the config's \"allowed_backends\" "
            "(kubernetes, docker)");
  config.backends.set_default(BackendKind::kDocker);  // as `serve --backend docker` does
  EXPECT_TRUE(config.backends.Check("--backend").ok());
}

TEST(ServerBackendsTest, BadValuesAreRefusedNamingTheKey) {
  const std::pair<const char*, const char*> bad[] = {
      {R"({"backend": "podman"})",
       "c.json: \"backend\": expected \"native\", \"docker\" or \"kubernetes\", got \"podman\""},
      {R"({"backend": 1})", "c.json: \"backend\": expected a backend's name"},
      {R"({"backend": ""})",
       "c.json: \"backend\": expected \"native\", \"docker\" or \"kubernetes\", got \"\""},
      {R"({"allowed_backends": []})",
       "c.json: \"allowed_backends\": expected a non-empty list of backend names"},
      {R"({"allowed_backends": "kubernetes"})",
       "c.json: \"allowed_backends\": expected a non-empty list of backend names"},
      {R"({"allowed_backends": ["kubernetes", 2]})",
       "c.json: \"allowed_backends\": expected backend names"},
      {R"({"allowed_backends": ["kvm"]})",
       "c.json: \"allowed_backends\": expected \"native\", \"docker\" or \"kubernetes\", got "
       "\"kvm\""},
      {R"({"allowed_backends": ["docker", "docker"]})",
       "c.json: \"allowed_backends\": docker appears twice"},
      {R"({"backend": "docker", "backend": "native"})", "c.json: key \"backend\" appears twice"},
  };
  for (const auto& [text, message] : bad) {
    ServerConfig config;
    Status st = ParseServerConfig(text, "c.json", &config);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_EQ(st.message(), message) << text;
    // Nothing of a refused file is kept.
    EXPECT_EQ(config.backends.default_backend(), BackendKind::kNative) << text;
    EXPECT_TRUE(config.backends.allowed().empty()) << text;
  }
  EXPECT_FALSE(ServerBackends::Parse("Kubernetes").ok());
  EXPECT_EQ(*ServerBackends::Parse("docker"), BackendKind::kDocker);
}

}  // namespace
}  // namespace agentbox
