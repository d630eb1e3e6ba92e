// Kubeconfig files as kubectl reads them, and one clear line for every bad one; the in-cluster
// service account.
#include "kubernetes/kubeconfig.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "base/base64.h"
#include "kubernetes/in_cluster.h"
#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/agentbox-kubeconfig-XXXXXX";
    dir_ = ::mkdtemp(templ);
  }
  void TearDown() override { RemoveTree(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    EXPECT_TRUE(WriteFile(path, text).ok());
    return path;
  }
  StatusOr<ClusterAccess> Load(const std::string& path, const std::string& context = "",
                               bool insecure = false) {
    return LoadKubeconfig({path, context, insecure}, {});
  }
  // A kubeconfig of one cluster, one user and two contexts, `user` and `cluster` its bodies.
  std::string Config(const std::string& cluster, const std::string& user) {
    return "apiVersion: v1\nkind: Config\ncurrent-context: dev\n"
           "clusters:\n- name: c1\n  cluster:\n" +
           cluster + "users:\n- name: u1\n  user:\n" + user +
           "contexts:\n- name: dev\n  context: {cluster: c1, user: u1, namespace: team-a}\n"
           "- name: other\n  context: {cluster: c1, user: u1}\n";
  }

  std::string dir_;
};

constexpr const char* kServer = "    server: https://10.0.0.1:6443\n";

TEST_F(KubeconfigTest, CurrentContextWithInlineCredentials) {
  std::string cluster =
      std::string(kServer) + "    certificate-authority-data: " + Base64Encode("CA PEM") + "\n";
  std::string user = "    client-certificate-data: " + Base64Encode("CERT PEM") +
                     "\n    client-key-data: " + Base64Encode("KEY PEM") + "\n    token: t0k\n";
  auto access = Load(Write("config", Config(cluster, user)));
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->server, "https://10.0.0.1:6443");
  EXPECT_EQ(access->ca_pem, "CA PEM");
  EXPECT_EQ(access->client_cert_pem, "CERT PEM");
  EXPECT_EQ(access->client_key_pem, "KEY PEM");
  EXPECT_EQ(access->token, "t0k");
  EXPECT_EQ(access->namespace_name, "team-a");
  EXPECT_FALSE(access->insecure_skip_tls_verify);
  EXPECT_EQ(access->origin, "context \"dev\" of " + dir_ + "/config");
}

TEST_F(KubeconfigTest, NamedContextAndFilesRelativeToTheConfig) {
  Write("ca.crt", "CA FROM FILE");
  Write("token", "file-token\n");
  std::string cluster = std::string(kServer) + "    certificate-authority: ca.crt\n";
  auto access = Load(Write("config", Config(cluster, "    tokenFile: token\n")), "other");
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->ca_pem, "CA FROM FILE");
  EXPECT_EQ(access->token_file, dir_ + "/token");
  EXPECT_EQ(access->namespace_name, "default");  // the context names none
}

TEST_F(KubeconfigTest, ExecPlugin) {
  std::string user =
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
      "      command: bin/login\n      args: [get-token, --fast]\n"
      "      env: [{name: REGION, value: eu}]\n";
  auto access = Load(Write("config", Config(kServer, user)));
  ASSERT_TRUE(access.ok()) << access.status().message();
  ASSERT_TRUE(access->exec);
  EXPECT_EQ(access->exec->command, dir_ + "/bin/login");
  EXPECT_EQ(access->exec->args, (std::vector<std::string>{"get-token", "--fast"}));
  EXPECT_EQ(access->exec->env[0], (std::pair<std::string, std::string>{"REGION", "eu"}));
  // A bare name stays bare: it is looked up on $PATH when it runs.
  user = "    exec: {apiVersion: client.authentication.k8s.io/v1, command: gke-auth}\n";
  EXPECT_EQ(Load(Write("config", Config(kServer, user)))->exec->command, "gke-auth");
}

TEST_F(KubeconfigTest, KubeconfigListMergesFirstWins) {
  std::string first = Write(
      "a", "current-context: dev\nclusters:\n- name: c1\n  cluster:\n" + std::string(kServer));
  std::string second = Write("b", Config("    server: https://ignored:1\n", "    token: t\n"));
  auto access = LoadKubeconfig({}, {first + ":" + dir_ + "/missing:" + second, ""});
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->server, "https://10.0.0.1:6443");  // c1 of the first file
  EXPECT_EQ(access->token, "t");                       // u1 of the second
}

TEST_F(KubeconfigTest, WhichFiles) {
  EXPECT_EQ(KubeconfigPaths({"/x", "", false}, {"/a:/b", "/home/u"}),
            (std::vector<std::string>{"/x"}));
  EXPECT_EQ(KubeconfigPaths({}, {"/a::/b", "/home/u"}), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(KubeconfigPaths({}, {"", "/home/u"}),
            (std::vector<std::string>{"/home/u/.kube/config"}));
  EXPECT_TRUE(KubeconfigPaths({}, {}).empty());
}

// Every bad kubeconfig: the code, and a piece of its one line.
TEST_F(KubeconfigTest, EachBadCaseIsOneClearLine) {
  struct Case {
    std::string text;
    std::string context;
    std::string expect;
  };
  std::string ok_user = "    token: t\n";
  std::vector<Case> cases = {
      {Config(kServer, ok_user), "prod", "no context \"prod\""},
      {"clusters: []\n", "", "no current-context"},
      {Config(std::string(kServer) + "    certificate-authority: /nonexistent/ca.crt\n", ok_user),
       "", "cannot read certificate-authority"},
      {Config(std::string(kServer) + "    certificate-authority-data: '%%%'\n", ok_user), "",
       "certificate-authority-data is not base64"},
      {Config(std::string(kServer) + "    insecure-skip-tls-verify: true\n", ok_user), "",
       "sets insecure-skip-tls-verify"},
      {Config("    server: http://10.0.0.1:8080\n", ok_user), "", "is not https"},
      {Config("    certificate-authority-data: eA==\n", ok_user), "", "has no server"},
      {Config(kServer, "    client-certificate-data: eA==\n"), "", "without its key"},
      {Config(kServer, "    tokenFile: /nonexistent/token\n"), "", "cannot read tokenFile"},
      {Config(kServer, "    auth-provider: {name: gcp}\n"), "", "auth-provider"},
      {Config(kServer, "    username: a\n    password: b\n"), "", "username and password"},
      {Config(kServer, "    exec: {apiVersion: v2, command: x}\n"), "", "is not v1 or v1beta1"},
      {Config(kServer, "    exec: {apiVersion: client.authentication.k8s.io/v1}\n"), "",
       "has no command"},
      {"current-context: dev\ncontexts:\n- name: dev\n  context: {cluster: nope}\n", "",
       "names cluster \"nope\", which is not defined"},
      {"clusters: {a: b\n", "", "not YAML"},
      {"- a\n- b\n", "", "not a kubeconfig mapping"},
      {"clusters:\n- cluster: {server: x}\n", "", "clusters[0] has no name"},
      {"clusters: [just-a-name]\n", "", "line 1"},
      {Config(kServer,
              "    exec: {apiVersion: client.authentication.k8s.io/v1, command: x, "
              "args: [{a: b}]}\n"),
       "", "line "},
  };
  for (const Case& c : cases) {
    auto access = Load(Write("config", c.text), c.context);
    ASSERT_FALSE(access.ok()) << c.expect;
    EXPECT_EQ(access.status().code(), StatusCode::kInvalidArgument) << c.expect;
    EXPECT_NE(access.status().message().find(c.expect), std::string::npos)
        << access.status().message();
    EXPECT_EQ(access.status().message().find('\n'), std::string::npos);
  }
  EXPECT_EQ(Load(dir_ + "/none").status().code(), StatusCode::kNotFound);
}

TEST_F(KubeconfigTest, InsecureOnlyWhenAllowed) {
  std::string cluster = std::string(kServer) + "    insecure-skip-tls-verify: true\n";
  auto access = Load(Write("config", Config(cluster, "    token: t\n")), "", true);
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_TRUE(access->insecure_skip_tls_verify);
}

TEST_F(KubeconfigTest, InClusterServiceAccount) {
  Write("token", "sa-token");
  Write("ca.crt", "SA CA");
  Write("namespace", "agentbox-system\n");
  auto access = LoadInCluster({"10.96.0.1", "443", dir_});
  ASSERT_TRUE(access.ok()) << access.status().message();
  EXPECT_EQ(access->server, "https://10.96.0.1:443");
  EXPECT_EQ(access->token_file, dir_ + "/token");
  EXPECT_EQ(access->ca_pem, "SA CA");
  EXPECT_EQ(access->namespace_name, "agentbox-system");
  EXPECT_EQ(LoadInCluster({"fd00::1", "443", dir_})->server, "https://[fd00::1]:443");
  EXPECT_EQ(LoadInCluster({"", "", dir_}).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(LoadInCluster({"10.96.0.1", "443", dir_ + "/none"}).status().code(),
            StatusCode::kUnavailable);
}

}  // namespace
}  // namespace agentbox::kubernetes
