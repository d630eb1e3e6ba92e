// Which cluster a sandbox's --kubeconfig/--context/--namespace mean: a kubeconfig when one is
// named or the default file exists, else the pod's service account, else one clear line.
#include "kubernetes/cluster_target.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

class ClusterTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/agentbox-cluster-target-XXXXXX";
    dir_ = ::mkdtemp(templ);
    ASSERT_TRUE(MakeDir(dir_ + "/sa", 0700).ok());
    ASSERT_TRUE(WriteFile(dir_ + "/sa/token", "sa-token").ok());
    ASSERT_TRUE(WriteFile(dir_ + "/sa/ca.crt", "SA CA").ok());
    ASSERT_TRUE(WriteFile(dir_ + "/sa/namespace", "agentbox-system\n").ok());
    ASSERT_TRUE(
        WriteFile(dir_ + "/config",
                  "apiVersion: v1\nkind: Config\ncurrent-context: dev\n"
                  "clusters:\n- name: c1\n  cluster: {server: 'https://k.example:6443'}\n"
                  "users:\n- name: u1\n  user: {token: t1}\n"
                  "contexts:\n- name: dev\n  context: {cluster: c1, user: u1, namespace: team-a}\n"
                  "- name: other\n  context: {cluster: c1, user: u1}\n")
            .ok());
  }
  void TearDown() override { RemoveTree(dir_); }

  // No kubeconfig anywhere (HOME without ~/.kube/config); in a pod when `in_pod`.
  ClusterEnv Env(bool in_pod) {
    ClusterEnv env;
    env.kubeconfig.home = dir_ + "/home";
    if (in_pod) env.in_cluster = {"10.96.0.1", "443", dir_ + "/sa"};
    return env;
  }
  std::string dir_;
};

TEST_F(ClusterTargetTest, NoClusterIsOneLine) {
  auto access = ResolveCluster({}, Env(false));
  ASSERT_EQ(access.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(access.status().message(),
            "no Kubernetes cluster to use: no kubeconfig (--kubeconfig, $KUBECONFIG, "
            "~/.kube/config) and agentbox is not running in a pod");
}

TEST_F(ClusterTargetTest, KubeconfigFlagWithItsContextAndNamespace) {
  auto access = ResolveCluster({dir_ + "/config", "", ""}, Env(true));
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->server, "https://k.example:6443");
  EXPECT_EQ(access->namespace_name, "team-a");
  access = ResolveCluster({dir_ + "/config", "other", "sandboxes"}, Env(false));
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->namespace_name, "sandboxes");
}

TEST_F(ClusterTargetTest, EnvironmentGivesDefaultsFlagsOverride) {
  ClusterEnv env = Env(false);
  env.kubeconfig.kubeconfig = dir_ + "/config";
  env.context = "other";
  env.namespace_name = "from-env";
  auto access = ResolveCluster({}, env);
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->namespace_name, "from-env");
  EXPECT_NE(access->origin.find("\"other\""), std::string::npos) << access->origin;
  access = ResolveCluster({"", "dev", "mine"}, env);
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->namespace_name, "mine");
  EXPECT_EQ(ResolveCluster({"", "nosuch", ""}, env).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ClusterTargetTest, DefaultKubeconfigOnlyWhenItExists) {
  ClusterEnv env = Env(true);
  auto access = ResolveCluster({}, env);  // no ~/.kube/config: the service account
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->server, "https://10.96.0.1:443");
  EXPECT_EQ(access->namespace_name, "agentbox-system");
  EXPECT_EQ(ResolveCluster({"", "", "sandboxes"}, env)->namespace_name, "sandboxes");
  EXPECT_EQ(ResolveCluster({"", "dev", ""}, env).status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(MakeDir(dir_ + "/home", 0700).ok());
  ASSERT_TRUE(MakeDir(dir_ + "/home/.kube", 0700).ok());
  ASSERT_TRUE(WriteFile(dir_ + "/home/.kube/config", *ReadFile(dir_ + "/config")).ok());
  access = ResolveCluster({}, env);
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->server, "https://k.example:6443");
}

}  // namespace
}  // namespace agentbox::kubernetes
