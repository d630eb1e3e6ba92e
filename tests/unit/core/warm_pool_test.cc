// The warm pools' key and who may be pooled (core/warm_pool.h): what the agent or the pod is
// started with is part of the key, what each exec is given is not.
#include "core/warm_pool.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

SandboxSpec Kube() {
  SandboxSpec spec;
  spec.backend = BackendKind::kKubernetes;
  return spec;
}

TEST(WarmPool, KeyHoldsWhatTheBoxStartsWith) {
  const SandboxSpec base = Kube();
  const std::string key = PoolKey(base, "https://a\nns");
  EXPECT_EQ(key, PoolKey(base, "https://a\nns"));
  EXPECT_NE(key, PoolKey(base, "https://b\nns")) << "another cluster";
  SandboxSpec other = base;
  other.limits.disk_bytes = 64 * kMiB;
  EXPECT_NE(key, PoolKey(other, "https://a\nns")) << "the pod's emptyDir sizeLimit";
  other = base;
  other.random_seed = 7;
  EXPECT_NE(key, PoolKey(other, "https://a\nns")) << "the agent's --random-seed";
  other = base;
  other.kube.namespace_name = "team-b";
  EXPECT_NE(key, PoolKey(other, "https://a\nns")) << "--namespace as given";
  other = base;
  other.backend = BackendKind::kDocker;
  EXPECT_NE(key, PoolKey(other, "https://a\nns"));
}

TEST(WarmPool, KeyLeavesOutWhatEachExecIsGiven) {
  const SandboxSpec base = Kube();
  SandboxSpec other = base;
  other.env = {{"GREETING", "hello"}};
  other.cwd = "/tmp";
  other.limits.timeout_seconds = 5;
  other.limits.output_bytes = 1024;
  EXPECT_EQ(PoolKey(base, ""), PoolKey(other, ""));
}

TEST(WarmPool, PoolableBackends) {
  SandboxSpec spec = Kube();
  EXPECT_TRUE(Poolable(spec));
  spec.ttl_seconds = 60;  // the pod's activeDeadlineSeconds would count from the pool's start
  EXPECT_FALSE(Poolable(spec));
  SandboxSpec docker;
  docker.backend = BackendKind::kDocker;
  EXPECT_TRUE(Poolable(docker));
  docker.ttl_seconds = 60;  // docker has no deadline of its own: agentbox's ttl starts at the claim
  EXPECT_TRUE(Poolable(docker));
  docker.workspace = "/srv/ws";
  EXPECT_FALSE(Poolable(docker));
  EXPECT_FALSE(Poolable(SandboxSpec{}));  // native
}

}  // namespace
}  // namespace agentbox
