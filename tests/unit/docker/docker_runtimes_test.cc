// Which --runtime is gVisor, from dockerd's /info, and the refusal of a workspace it cannot use.
#include <gtest/gtest.h>

#include "docker/runtimes.h"

namespace agentbox::docker {
namespace {

const nlohmann::json kInfo = nlohmann::json::parse(R"({"Runtimes": {
  "runc": {"path": "runc"},
  "runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]},
  "gvisor": {"path": "/opt/gvisor/runsc"},
  "kata": {"path": "/usr/bin/kata-runtime"}}})");

TEST(DockerRuntimesTest, KnowsGvisorByNameOrBinary) {
  EXPECT_TRUE(IsGvisorRuntime(kInfo, "runsc"));
  EXPECT_TRUE(IsGvisorRuntime(kInfo, "gvisor"));
  EXPECT_FALSE(IsGvisorRuntime(kInfo, "runc"));
  EXPECT_FALSE(IsGvisorRuntime(kInfo, "kata"));
  EXPECT_FALSE(IsGvisorRuntime(kInfo, ""));
  EXPECT_FALSE(IsGvisorRuntime(kInfo, "unregistered"));
  EXPECT_FALSE(IsGvisorRuntime(nlohmann::json(), "gvisor"));
  EXPECT_TRUE(IsGvisorRuntime(nlohmann::json(), "runsc"));
}

TEST(DockerRuntimesTest, WorkspaceOwnerErrorIsOneLineSayingWhatToDo) {
  Status s = GvisorWorkspaceOwnerError("/srv/ws", 4242, 4243, 1000, 1000);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
  EXPECT_NE(s.message().find("/srv/ws is owned by 4242:4243"), std::string::npos);
  EXPECT_NE(s.message().find("--runtime runsc"), std::string::npos);
  EXPECT_NE(s.message().find("owned by 1000:1000"), std::string::npos);
}

}  // namespace
}  // namespace agentbox::docker
