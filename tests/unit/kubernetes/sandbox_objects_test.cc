// The Secret (one token per sandbox, never shared) and the deny-all NetworkPolicy whose only
// ingress is serve.
#include "kubernetes/sandbox_objects.h"

#include <gtest/gtest.h>

#include "base/base64.h"
#include "kubernetes/object_names.h"
#include "manifest_fixtures.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

TEST(KubernetesSecret, HoldsThisSandboxsTokenOnly) {
  auto secret = AgentTokenSecret(testing::StrictInputs(), "s3cret");
  ASSERT_TRUE(secret.ok());
  EXPECT_EQ((*secret)["metadata"]["name"], "agentbox-sb-0123abcd-token");
  EXPECT_EQ((*secret)["metadata"]["labels"][kLabelSandbox], "sb-0123abcd");
  EXPECT_EQ((*secret)["data"], json({{"token", Base64Encode("s3cret")}}));
  EXPECT_EQ((*secret)["immutable"], true);
  EXPECT_EQ(AgentTokenSecret(testing::StrictInputs(), "").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(KubernetesNetworkPolicy, DeniesAllEgress) {
  auto policy = SandboxNetworkPolicy(testing::StrictInputs());
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ((*policy)["spec"]["policyTypes"], json({"Ingress", "Egress"}));
  EXPECT_EQ((*policy)["spec"]["egress"], json::array());
}

TEST(KubernetesNetworkPolicy, OnlyServeMayConnectToTheAgentPort) {
  auto policy = SandboxNetworkPolicy(testing::StrictInputs());
  ASSERT_TRUE(policy.ok());
  const json& spec = (*policy)["spec"];
  EXPECT_EQ(spec["podSelector"], json({{"matchLabels", {{kLabelSandbox, "sb-0123abcd"}}}}));
  ASSERT_EQ(spec["ingress"].size(), 1u);
  EXPECT_EQ(spec["ingress"][0]["from"],
            json({{{"podSelector", {{"matchLabels", {{kLabelRole, kRoleServer}}}}}}}));
  EXPECT_EQ(spec["ingress"][0]["ports"], json({{{"protocol", "TCP"}, {"port", kAgentPort}}}));
}

TEST(KubernetesNetworkPolicy, ServeInAnotherNamespace) {
  auto policy = SandboxNetworkPolicy(testing::FullInputs());
  ASSERT_TRUE(policy.ok());
  const json& from = (*policy)["spec"]["ingress"][0]["from"][0];
  EXPECT_EQ(from["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"],
            "agentbox-system");
  EXPECT_EQ(from["podSelector"]["matchLabels"][kLabelRole], kRoleServer);
  EXPECT_EQ((*policy)["spec"]["ingress"][0]["from"].size(), 1u);  // one peer: both must match
}

TEST(KubernetesNetworkPolicy, BadIdRefused) {
  ManifestInputs in = testing::StrictInputs();
  in.id = "Bad_Id";
  EXPECT_EQ(SandboxNetworkPolicy(in).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace agentbox::kubernetes
