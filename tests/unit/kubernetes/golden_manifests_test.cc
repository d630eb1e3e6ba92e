// The manifests of the strict default policy and of one with every option, byte for byte
// against tests/golden/kubernetes/*.json (a List of pod, Secret and NetworkPolicy, which
// `kubectl apply -f` takes as it is). A change to any field fails here first; when it is meant,
// rerun with AGENTBOX_UPDATE_GOLDEN=1 and review the diff of the golden file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kubernetes/pod_manifest.h"
#include "kubernetes/sandbox_objects.h"
#include "manifest_fixtures.h"
#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

std::string ManifestList(const SandboxSpec& spec, const ManifestInputs& in) {
  auto pod = PodManifest(spec, in);
  auto secret = AgentTokenSecret(in, "test-token-not-a-secret");
  auto policy = SandboxNetworkPolicy(in);
  EXPECT_TRUE(pod.ok() && secret.ok() && policy.ok());
  nlohmann::json list = {
      {"apiVersion", "v1"}, {"kind", "List"}, {"items", {*pod, *secret, *policy}}};
  return list.dump(2) + "\n";
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  std::string path = std::string(AGENTBOX_SOURCE_DIR) + "/tests/golden/kubernetes/" + name;
  if (std::getenv("AGENTBOX_UPDATE_GOLDEN") != nullptr) {
    ASSERT_TRUE(WriteFile(path, actual).ok());
  }
  auto expected = ReadFile(path);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  EXPECT_EQ(*expected, actual) << "the manifests differ from " << path;
}

TEST(KubernetesGolden, StrictDefaultPolicy) {
  ExpectGolden("strict.json", ManifestList(testing::StrictSpec(), testing::StrictInputs()));
}

TEST(KubernetesGolden, EveryOption) {
  ExpectGolden("all-options.json", ManifestList(testing::FullSpec(), testing::FullInputs()));
}

}  // namespace
}  // namespace agentbox::kubernetes
