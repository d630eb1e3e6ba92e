// The objects of a sandbox made through agent-sandbox's SandboxClaim
// (kubernetes/claim_manifests.h): the template holds the same strict pod as a sandbox's own, but
// shared, so without a token; its name follows its content; the claim carries the record; the
// claim's status is read as the controller writes it; the discovery check names what is missing.
// The whole template, its policy and a claim of the strict policy:
// tests/golden/kubernetes/claim-template.json (rerun with AGENTBOX_UPDATE_GOLDEN=1 and review the
// diff when a change is meant).
#include "kubernetes/claim_manifests.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kubernetes/object_names.h"
#include "kubernetes/pod_manifest.h"
#include "manifest_fixtures.h"
#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

ManifestInputs ClaimInputs(const SandboxSpec& spec, ManifestInputs in) {
  in.agent_args = AgentArgs(spec, /*token_by_claim=*/true);
  return in;
}

json Template(const SandboxSpec& spec, const ManifestInputs& in) {
  auto t = SandboxTemplateManifest(spec, ClaimInputs(spec, in));
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : json();
}

TEST(ClaimManifests, TheTemplatesPodIsTheStrictPodWithoutAToken) {
  const SandboxSpec spec = testing::FullSpec();
  const ManifestInputs in = ClaimInputs(spec, testing::FullInputs());
  json tmpl = Template(spec, in);
  auto own = PodManifest(spec, testing::FullInputs());
  ASSERT_TRUE(own.ok());
  json pod = tmpl["spec"]["podTemplate"]["spec"];
  // Every securityContext, resource and emptyDir as the sandbox's own pod has them.
  EXPECT_EQ(pod["securityContext"], (*own)["spec"]["securityContext"]);
  EXPECT_EQ(pod["containers"][0]["securityContext"],
            (*own)["spec"]["containers"][0]["securityContext"]);
  EXPECT_EQ(pod["containers"][0]["resources"], (*own)["spec"]["containers"][0]["resources"]);
  EXPECT_EQ(pod["initContainers"], (*own)["spec"]["initContainers"]);
  EXPECT_FALSE(pod["automountServiceAccountToken"].get<bool>());
  // No Secret, no token file: the agent waits for its claim.
  for (const json& v : pod["volumes"]) EXPECT_FALSE(v.contains("secret")) << v.dump();
  for (const json& m : pod["containers"][0]["volumeMounts"]) {
    EXPECT_NE(m["mountPath"], kAgentTokenDir);
  }
  const auto args = pod["containers"][0]["args"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(args.begin(), args.end(), "--token-by-claim"), args.end());
  EXPECT_EQ(std::find(args.begin(), args.end(), "--token-file"), args.end());
  // A warm pod's start is not its sandbox's: the claim's lifecycle ends it instead.
  EXPECT_FALSE(pod.contains("activeDeadlineSeconds"));
  EXPECT_EQ(pod["runtimeClassName"], "gvisor");
}

TEST(ClaimManifests, TheTemplatesNameIsItsContents) {
  const SandboxSpec strict = testing::StrictSpec();
  json a = Template(strict, testing::StrictInputs());
  // Another sandbox of the same shape: the same template, whatever its id, name or ttl.
  ManifestInputs other = testing::StrictInputs();
  other.id = "sb-99999999";
  other.identity = {"named", "2026-12-05T14:00:00Z", 1796480000, false};
  EXPECT_EQ(a["metadata"]["name"], Template(strict, other)["metadata"]["name"]);
  // Another shape, another template.
  SandboxSpec bigger = strict;
  bigger.limits.memory_bytes *= 2;
  EXPECT_NE(a["metadata"]["name"], Template(bigger, testing::StrictInputs())["metadata"]["name"]);
  ManifestInputs owned = testing::StrictInputs();
  owned.owner = "another-owner";
  EXPECT_NE(a["metadata"]["name"], Template(strict, owned)["metadata"]["name"]);
  const std::string name = a["metadata"]["name"];
  EXPECT_EQ(name.rfind("agentbox-t-", 0), 0u);
  EXPECT_EQ(name.size(), std::string("agentbox-t-").size() + 20);
  EXPECT_EQ(a["spec"]["podTemplate"]["metadata"]["labels"][kLabelTemplate], name);
}

TEST(ClaimManifests, TheClaimCarriesTheRecordAndTheTtl) {
  const SandboxSpec spec = testing::FullSpec();
  auto claim = SandboxClaimManifest(spec, testing::FullInputs(), "agentbox-t-x");
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ((*claim)["metadata"]["name"], "agentbox-sb-0123abcd");
  EXPECT_EQ((*claim)["metadata"]["labels"][kLabelSandbox], "sb-0123abcd");
  EXPECT_EQ((*claim)["metadata"]["annotations"][kAnnotationName], "build.web");
  EXPECT_EQ((*claim)["spec"]["sandboxTemplateRef"]["name"], "agentbox-t-x");
  EXPECT_EQ((*claim)["spec"]["lifecycle"]["shutdownTime"], "2026-12-05T14:13:20Z");
  EXPECT_EQ((*claim)["spec"]["lifecycle"]["shutdownPolicy"], "Delete");
  auto untimed = SandboxClaimManifest(testing::StrictSpec(), testing::StrictInputs(), "t");
  ASSERT_TRUE(untimed.ok());
  EXPECT_FALSE((*untimed)["spec"].contains("lifecycle"));
  EXPECT_FALSE(SandboxClaimManifest(spec, ManifestInputs{}, "t").ok());  // no id
}

TEST(ClaimManifests, TheBindingIsReadyWithAnIp) {
  ClaimBinding none = ReadClaimBinding(json::object());
  EXPECT_FALSE(none.ready);
  EXPECT_EQ(none.detail, "no Ready condition yet");
  json claim = {{"status",
                 {{"sandbox", {{"name", "agentbox-x"}, {"podIPs", {"10.0.0.5"}}}},
                  {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  ClaimBinding bound = ReadClaimBinding(claim);
  EXPECT_TRUE(bound.ready);
  EXPECT_EQ(bound.sandbox_name, "agentbox-x");
  ASSERT_EQ(bound.pod_ips.size(), 1u);
  EXPECT_EQ(bound.pod_ips[0], "10.0.0.5");
  claim["status"]["conditions"][0] = {
      {"type", "Ready"}, {"status", "False"}, {"reason", "TemplateNotFound"}, {"message", "gone"}};
  EXPECT_EQ(ReadClaimBinding(claim).detail, "Ready False: TemplateNotFound: gone");
}

TEST(ClaimManifests, TheDiscoveryCheckNamesWhatIsMissing) {
  json both = {{"resources", {{{"name", "sandboxclaims"}}, {{"name", "sandboxtemplates"}}}}};
  EXPECT_EQ(MissingClaimResources(both), "");
  EXPECT_EQ(MissingClaimResources({{"resources", {{{"name", "sandboxclaims"}}}}}),
            "sandboxtemplates");
  EXPECT_EQ(MissingClaimResources(json::object()), "sandboxclaims and sandboxtemplates");
}

TEST(ClaimManifests, GoldenTemplatePolicyAndClaim) {
  const SandboxSpec spec = testing::StrictSpec();
  const ManifestInputs in = ClaimInputs(spec, testing::StrictInputs());
  json tmpl = Template(spec, in);
  const std::string name = tmpl["metadata"]["name"];
  auto claim = SandboxClaimManifest(spec, in, name);
  ASSERT_TRUE(claim.ok());
  json list = {{"apiVersion", "v1"},
               {"kind", "List"},
               {"items", {tmpl, TemplateNetworkPolicy(in, name), *claim}}};
  const std::string actual = list.dump(2) + "\n";
  const std::string path =
      std::string(AGENTBOX_SOURCE_DIR) + "/tests/golden/kubernetes/claim-template.json";
  if (std::getenv("AGENTBOX_UPDATE_GOLDEN") != nullptr) {
    ASSERT_TRUE(WriteFile(path, actual).ok());
  }
  auto expected = ReadFile(path);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  EXPECT_EQ(*expected, actual) << "the manifests differ from " << path;
}

}  // namespace
}  // namespace agentbox::kubernetes
