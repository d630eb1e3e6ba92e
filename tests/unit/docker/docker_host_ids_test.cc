// Who a container's processes are on the host: never an account's uid.
#include <gtest/gtest.h>

#include "docker/host_ids.h"

namespace agentbox::docker {
namespace {

TEST(DockerHostIdsTest, WithoutUsernsRemapADedicatedIdBelowDockersCeiling) {
  auto ids = ContainerIdsFor(
      nlohmann::json::parse(R"({"SecurityOptions":["name=seccomp,profile=builtin"]})"), "", "");
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(ids->user, "2100001000:2100001000");
  EXPECT_EQ(ids->host_uid, kDockerHostUserId);
  EXPECT_LT(ids->host_uid, 1u << 31) << "docker refuses ids of 2^31 and more";
  EXPECT_GT(ids->host_uid, 600100000u) << "above useradd's subordinate ranges";
  EXPECT_FALSE(ids->userns_remap);
}

TEST(DockerHostIdsTest, UnderUsernsRemapTheRemapUsersRange) {
  const auto info = nlohmann::json::parse(R"({"SecurityOptions":["name=seccomp","name=userns"]})");
  auto ids = ContainerIdsFor(info, "alice:100000:65536\ndockremap:165536:65536\n",
                             "dockremap:231072:65536\n");
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(ids->user, "1000:1000");
  EXPECT_EQ(ids->host_uid, 166536u);
  EXPECT_EQ(ids->host_gid, 232072u);
  EXPECT_TRUE(ids->userns_remap);
  auto unknown = ContainerIdsFor(info, "alice:100000:65536\n", "");
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("dockremap"), std::string::npos);
}

TEST(DockerHostIdsTest, AnImagesUserIsTheSameHostIdOrItsPlaceInTheRemapRange) {
  auto plain = ContainerIdsFor(nlohmann::json::parse(R"({"SecurityOptions":[]})"), "", "");
  ASSERT_TRUE(plain.ok());
  ContainerIds same = WithSandboxUser(*plain, SandboxUser{1001, 50});
  EXPECT_EQ(same.user, plain->user) << "the agent maps the container's id to the user";
  EXPECT_EQ(same.host_uid, kDockerHostUserId);
  const auto info = nlohmann::json::parse(R"({"SecurityOptions":["name=userns"]})");
  auto remap = ContainerIdsFor(info, "dockremap:165536:65536\n", "dockremap:231072:65536\n");
  ASSERT_TRUE(remap.ok());
  ContainerIds moved = WithSandboxUser(*remap, SandboxUser{1001, 50});
  EXPECT_EQ(moved.user, "1001:50");
  EXPECT_EQ(moved.host_uid, 165536u + 1001);
  EXPECT_EQ(moved.host_gid, 231072u + 50);
}

}  // namespace
}  // namespace agentbox::docker
