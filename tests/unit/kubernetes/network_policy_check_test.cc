// inspect --verify's network_policy check: the sandbox's NetworkPolicy as the cluster holds it.
#include "kubernetes/network_policy_check.h"

#include <gtest/gtest.h>

#include "kubernetes/sandbox_objects.h"
#include "manifest_fixtures.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

json Made() { return *SandboxNetworkPolicy(testing::StrictInputs()); }

TEST(NetworkPolicyCheck, PassesWhenTheClusterHoldsWhatAgentboxMade) {
  json live = Made();
  live["metadata"]["resourceVersion"] = "17";  // the server's additions are not the spec
  live["metadata"]["uid"] = "0f3c";
  // Owned by the sandbox's Secret (manifest_inputs.h SecretOwner): metadata, not what is checked.
  live["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "v1"},
                                                      {"kind", "Secret"},
                                                      {"name", "agentbox-sb-0123abcd-token"},
                                                      {"uid", "9a1e"},
                                                      {"controller", false},
                                                      {"blockOwnerDeletion", false}}});
  VerifyCheck check = NetworkPolicyCheck(testing::StrictInputs(), live);
  EXPECT_TRUE(check.ok) << check.got;
  EXPECT_EQ(check.name, "network_policy");
  EXPECT_TRUE(check.not_applicable.empty());
  live["spec"].erase("egress");  // a real API server leaves an empty list out
  EXPECT_TRUE(NetworkPolicyCheck(testing::StrictInputs(), live).ok);
}

TEST(NetworkPolicyCheck, AChangedPolicyFailsAndShowsWhatItHolds) {
  json live = Made();
  live["spec"]["egress"] = json::array({json::object()});  // allow all egress
  VerifyCheck check = NetworkPolicyCheck(testing::StrictInputs(), live);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.got.rfind("changed: ", 0), 0u) << check.got;
  live = Made();
  live["spec"]["ingress"][0].erase("from");  // any pod may reach the agent
  EXPECT_FALSE(NetworkPolicyCheck(testing::StrictInputs(), live).ok);
  live = Made();
  live["spec"]["policyTypes"] = json::array({"Ingress"});  // egress no longer governed
  EXPECT_FALSE(NetworkPolicyCheck(testing::StrictInputs(), live).ok);
}

TEST(NetworkPolicyCheck, AbsentOrUnreadableFails) {
  VerifyCheck gone = NetworkPolicyCheck(testing::StrictInputs(), NotFound("not found"));
  EXPECT_FALSE(gone.ok);
  EXPECT_EQ(gone.got, "absent");
  VerifyCheck denied = NetworkPolicyCheck({}, PermissionDenied("forbidden"));
  EXPECT_FALSE(denied.ok);
  EXPECT_EQ(denied.got, "unreadable: forbidden");
}

}  // namespace
}  // namespace agentbox::kubernetes
