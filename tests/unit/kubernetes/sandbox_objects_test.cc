// The Secret (one token per sandbox, never shared) and the deny-all NetworkPolicy whose only
// ingress is serve.
#include "kubernetes/sandbox_objects.h"

#include <gtest/gtest.h>

#include "base/base64.h"
#include "kubernetes/claim_manifests.h"
#include "kubernetes/object_names.h"
#include "kubernetes/pod_manifest.h"
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

// The Secret is the root of a sandbox's objects: its pod, NetworkPolicy and SandboxClaim name it
// (as the API server returned it, uid and all) so that the cluster's garbage collector removes
// them with it; not as controller, and never blocking (that needs more rights).
TEST(KubernetesSecret, OwnsThePodPolicyAndClaimWhenMade) {
  json made = *AgentTokenSecret(testing::StrictInputs(), "s3cret");
  made["metadata"]["uid"] = "9a1e2b3c";
  auto root = SecretOwner(made);
  ASSERT_TRUE(root.ok());
  ManifestInputs owned = testing::StrictInputs();
  owned.owners.push_back(*root);
  const json want = json::array({{{"apiVersion", "v1"},
                                  {"kind", "Secret"},
                                  {"name", "agentbox-sb-0123abcd-token"},
                                  {"uid", "9a1e2b3c"},
                                  {"controller", false},
                                  {"blockOwnerDeletion", false}}});
  EXPECT_EQ((*SandboxNetworkPolicy(owned))["metadata"]["ownerReferences"], want);
  EXPECT_EQ((*PodManifest(testing::StrictSpec(), owned))["metadata"]["ownerReferences"], want);
  auto claim = SandboxClaimManifest(testing::StrictSpec(), owned, "agentbox-t-x");
  EXPECT_EQ((*claim)["metadata"]["ownerReferences"], want);
  // The shared template and its policy are no one sandbox's.
  EXPECT_FALSE((*SandboxTemplateManifest(testing::StrictSpec(), owned))["metadata"].contains(
      "ownerReferences"));
  EXPECT_FALSE(
      TemplateNetworkPolicy(owned, "agentbox-t-x")["metadata"].contains("ownerReferences"));
  // A Secret without its uid (never from a real API server) owns nothing.
  made["metadata"].erase("uid");
  EXPECT_EQ(SecretOwner(made).status().code(), StatusCode::kInternal);
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
