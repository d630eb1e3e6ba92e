// The sandbox record (sandbox.json) round-trips, and records written before a field existed load.
#include "core/sandbox_record.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

SandboxRecord SampleRecord() {
  SandboxRecord r;
  r.id = "0123456789ab";
  r.name = "box";
  r.backend = BackendKind::kDocker;
  r.created_at = "2026-11-30T03:00:00Z";
  r.workspace = "/tmp/ws";
  r.state_dir = "/tmp/state/sandboxes/0123456789ab";
  r.agent_socket = r.state_dir + "/run/agent.sock";
  r.init_pid = 4242;
  r.init_start_time = 99;
  r.cgroup_location = {{"memory", "/sys/fs/cgroup/memory/docker/c"},
                       {"pids", "/sys/fs/cgroup/pids/docker/c"}};
  r.container_id = "c";
  return r;
}

TEST(SandboxRecordTest, RoundTripsTheCgroupLocation) {
  auto back = SandboxRecordFromJson(SandboxRecordToJson(SampleRecord()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->cgroup_location, SampleRecord().cgroup_location);
  EXPECT_EQ(back->init_pid, 4242);
  EXPECT_EQ(back->container_id, "c");
}

TEST(SandboxRecordTest, RoundTripsTheImagesUser) {
  SandboxRecord r = SampleRecord();
  r.spec.user = SandboxUser{1001, 50};
  auto back = SandboxRecordFromJson(SandboxRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->spec.user, (SandboxUser{1001, 50}));
  auto plain = SandboxRecordFromJson(SandboxRecordToJson(SampleRecord()));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->spec.user, (SandboxUser{1000, 1000}));
}

TEST(SandboxRecordTest, RoundTripsServesTenant) {
  SandboxRecord r = SampleRecord();
  r.tenant = "a";
  r.tenant_name = "build";
  auto back = SandboxRecordFromJson(SandboxRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->tenant, "a");
  EXPECT_EQ(back->tenant_name, "build");
  // A record without one (the CLI's, or from before) has none, and writes none.
  EXPECT_EQ(SandboxRecordToJson(SampleRecord()).find("tenant"), std::string::npos);
  EXPECT_EQ(SandboxRecordFromJson(SandboxRecordToJson(SampleRecord()))->tenant, "");
}

TEST(SandboxRecordTest, RoundTripsTheTtlAndItsExpiry) {
  SandboxRecord r = SampleRecord();
  r.spec.ttl_seconds = 90.5;
  r.expires_at = ExpiryOf(r.spec, 1000);
  EXPECT_EQ(r.expires_at, 1091);  // rounded up: never before the ttl has passed
  auto back = SandboxRecordFromJson(SandboxRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->expires_at, 1091);
  EXPECT_EQ(back->spec.ttl_seconds, 90.5);
  EXPECT_FALSE(HasExpired(*back, 1090));
  EXPECT_TRUE(HasExpired(*back, 1091));
  SandboxRecord forever = SampleRecord();
  EXPECT_EQ(ExpiryOf(forever.spec, 1000), 0);
  EXPECT_FALSE(HasExpired(forever, INT64_MAX));
  EXPECT_EQ(Rfc3339(0), "1970-01-01T00:00:00Z");
}

TEST(SandboxRecordTest, ARecordWithoutCgroupLocationLoadsWithNone) {
  std::string json = SandboxRecordToJson(SampleRecord());
  size_t at = json.find("\"cgroup_location\"");
  ASSERT_NE(at, std::string::npos);
  size_t end = json.find('}', at);
  json.erase(at, end + 2 - at);  // the member, its closing brace and the comma after it
  auto back = SandboxRecordFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << json;
  EXPECT_TRUE(back->cgroup_location.empty());
}

TEST(SandboxRecordTest, AMalformedCgroupLocationIsACorruptRecord) {
  std::string json = SandboxRecordToJson(SampleRecord());
  size_t at = json.find("\"/sys/fs/cgroup/memory/docker/c\"");
  ASSERT_NE(at, std::string::npos);
  json.replace(at, std::string("\"/sys/fs/cgroup/memory/docker/c\"").size(), "7");
  EXPECT_FALSE(SandboxRecordFromJson(json).ok());
}

TEST(SandboxRecordTest, RoundTripsATcpAgentAndItsToken) {
  SandboxRecord r = SampleRecord();
  r.agent_socket = "tcp:10.88.0.5:7070";
  r.agent_token = "per-sandbox-token-0123456789";
  auto back = SandboxRecordFromJson(SandboxRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->agent().address, "tcp:10.88.0.5:7070");
  EXPECT_EQ(back->agent().token, "per-sandbox-token-0123456789");
  auto unix_socket = SandboxRecordFromJson(SandboxRecordToJson(SampleRecord()));
  ASSERT_TRUE(unix_socket.ok());
  EXPECT_EQ(unix_socket->agent().address, SampleRecord().agent_socket);
  EXPECT_EQ(unix_socket->agent().token, "");
}

}  // namespace
}  // namespace agentbox
