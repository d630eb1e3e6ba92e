// Each security property of issue 20 point 2 on the generated pod, one named test each, on the
// strict default policy and on the one with every option: a regression in any single field
// fails the test that names it.
#include "kubernetes/pod_manifest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kubernetes/object_names.h"
#include "manifest_fixtures.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

std::vector<json> BothPods() {
  std::vector<json> pods;
  for (const auto& [spec, in] : {std::pair{testing::StrictSpec(), testing::StrictInputs()},
                                 std::pair{testing::FullSpec(), testing::FullInputs()}}) {
    auto pod = PodManifest(spec, in);
    EXPECT_TRUE(pod.ok()) << pod.status().message();
    pods.push_back(*pod);
  }
  return pods;
}

// Every container, init containers included: each must hold the property on its own.
std::vector<json> Containers(const json& pod) {
  std::vector<json> all;
  for (const json& c : pod["spec"]["initContainers"]) all.push_back(c);
  for (const json& c : pod["spec"]["containers"]) all.push_back(c);
  return all;
}

const json& Volume(const json& pod, const std::string& name) {
  for (const json& v : pod["spec"]["volumes"]) {
    if (v["name"] == name) return v;
  }
  static const json kNone;
  ADD_FAILURE() << "no volume " << name;
  return kNone;
}

TEST(KubernetesPod, RunsAsNonRootUser) {
  auto pods = BothPods();
  EXPECT_EQ(pods[0]["spec"]["securityContext"]["runAsUser"], 1000);
  EXPECT_EQ(pods[0]["spec"]["securityContext"]["runAsGroup"], 1000);
  EXPECT_EQ(pods[1]["spec"]["securityContext"]["runAsUser"], 1234);  // the image's user
  for (const json& pod : pods) {
    EXPECT_EQ(pod["spec"]["securityContext"]["runAsNonRoot"], true);
    for (const json& c : Containers(pod)) {
      EXPECT_EQ(c["securityContext"]["runAsNonRoot"], true) << c["name"];
      EXPECT_NE(c["securityContext"]["runAsUser"], 0) << c["name"];
    }
  }
}

TEST(KubernetesPod, ReadOnlyRootFilesystem) {
  for (const json& pod : BothPods()) {
    for (const json& c : Containers(pod)) {
      EXPECT_EQ(c["securityContext"]["readOnlyRootFilesystem"], true) << c["name"];
    }
  }
}

TEST(KubernetesPod, NoPrivilegeEscalation) {
  for (const json& pod : BothPods()) {
    for (const json& c : Containers(pod)) {
      EXPECT_EQ(c["securityContext"]["allowPrivilegeEscalation"], false) << c["name"];
      EXPECT_EQ(c["securityContext"]["privileged"], false) << c["name"];
    }
  }
}

TEST(KubernetesPod, DropsAllCapabilities) {
  for (const json& pod : BothPods()) {
    for (const json& c : Containers(pod)) {
      EXPECT_EQ(c["securityContext"]["capabilities"], json({{"drop", {"ALL"}}})) << c["name"];
    }
  }
}

TEST(KubernetesPod, SeccompRuntimeDefaultOrAgentboxProfile) {
  auto pods = BothPods();
  const char* kAnnotation = "seccomp.security.alpha.kubernetes.io/pod";
  json runtime_default = {{"type", "RuntimeDefault"}};
  json localhost = {{"type", "Localhost"}, {"localhostProfile", "agentbox.json"}};
  EXPECT_EQ(pods[0]["spec"]["securityContext"]["seccompProfile"], runtime_default);
  EXPECT_EQ(pods[0]["metadata"]["annotations"][kAnnotation], "runtime/default");
  EXPECT_EQ(pods[1]["spec"]["securityContext"]["seccompProfile"], localhost);
  EXPECT_EQ(pods[1]["metadata"]["annotations"][kAnnotation], "localhost/agentbox.json");
  for (size_t i = 0; i < pods.size(); ++i) {
    for (const json& c : Containers(pods[i])) {
      EXPECT_EQ(c["securityContext"]["seccompProfile"], i == 0 ? runtime_default : localhost);
    }
  }
}

TEST(KubernetesPod, NoServiceAccountToken) {
  for (const json& pod : BothPods()) {
    EXPECT_EQ(pod["spec"]["automountServiceAccountToken"], false);
    EXPECT_FALSE(pod["spec"].contains("serviceAccountName"));
  }
}

TEST(KubernetesPod, NoHostNamespaces) {
  for (const json& pod : BothPods()) {
    for (const char* field : {"hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace"}) {
      EXPECT_EQ(pod["spec"][field], false) << field;
    }
    EXPECT_FALSE(pod["spec"].contains("hostUsers"));  // left to the cluster, never forced on
  }
}

TEST(KubernetesPod, NoHostPathOrHostPort) {
  for (const json& pod : BothPods()) {
    for (const json& v : pod["spec"]["volumes"]) {
      EXPECT_TRUE(v.contains("emptyDir") || v.contains("secret")) << v.dump();
    }
    for (const json& c : Containers(pod)) {
      for (const json& p : c.value("ports", json::array())) EXPECT_FALSE(p.contains("hostPort"));
    }
  }
}

TEST(KubernetesPod, RequestsEqualLimits) {
  auto pods = BothPods();
  json strict = {{"memory", "536870912"}, {"cpu", "1000m"}};
  json full = {{"memory", "2147483648"}, {"cpu", "1500m"}};
  for (size_t i = 0; i < pods.size(); ++i) {
    for (const json& c : Containers(pods[i])) {
      EXPECT_EQ(c["resources"]["limits"], i == 0 ? strict : full) << c["name"];
      EXPECT_EQ(c["resources"]["requests"], c["resources"]["limits"]) << c["name"];
    }
  }
}

TEST(KubernetesPod, WorkspaceEmptyDirWithDiskLimit) {
  auto pods = BothPods();
  EXPECT_EQ(Volume(pods[0], "workspace")["emptyDir"], json({{"sizeLimit", "1073741824"}}));
  EXPECT_EQ(Volume(pods[1], "workspace")["emptyDir"], json::object());  // --disk-limit none
}

TEST(KubernetesPod, TmpAndShmInMemoryWithSizes) {
  auto pods = BothPods();
  EXPECT_EQ(Volume(pods[0], "tmp")["emptyDir"],
            json({{"medium", "Memory"}, {"sizeLimit", "268435456"}}));
  EXPECT_EQ(Volume(pods[0], "shm")["emptyDir"],
            json({{"medium", "Memory"}, {"sizeLimit", "67108864"}}));
  EXPECT_EQ(Volume(pods[1], "tmp")["emptyDir"]["sizeLimit"], "536870912");
  EXPECT_EQ(Volume(pods[1], "shm")["emptyDir"]["sizeLimit"], "134217728");
  json mounts = pods[0]["spec"]["containers"][0]["volumeMounts"];
  EXPECT_NE(mounts.dump().find(R"("mountPath":"/dev/shm","name":"shm")"), std::string::npos);
  EXPECT_NE(mounts.dump().find(R"("mountPath":"/tmp","name":"tmp")"), std::string::npos);
}

TEST(KubernetesPod, ActiveDeadlineFromTtl) {
  auto pods = BothPods();
  EXPECT_FALSE(pods[0]["spec"].contains("activeDeadlineSeconds"));  // no TTL: no deadline
  EXPECT_EQ(pods[1]["spec"]["activeDeadlineSeconds"], 3601);        // rounded up
}

TEST(KubernetesPod, RuntimeClassOnlyWhenAsked) {
  auto pods = BothPods();
  EXPECT_FALSE(pods[0]["spec"].contains("runtimeClassName"));
  EXPECT_EQ(pods[1]["spec"]["runtimeClassName"], "gvisor");
}

TEST(KubernetesPod, AgentIsPid1FromTheInitContainersCopy) {
  for (const json& pod : BothPods()) {
    const json& init = pod["spec"]["initContainers"][0];
    EXPECT_EQ(init["command"], json({kAgentImageCopy, kAgentImagePath, kAgentPath}));
    EXPECT_EQ(init["volumeMounts"][0]["mountPath"], kAgentDir);
    EXPECT_EQ(init["volumeMounts"][0]["readOnly"], false);
    const json& box = pod["spec"]["containers"][0];
    EXPECT_EQ(box["command"], json({kAgentPath}));
    EXPECT_EQ(box["volumeMounts"][0],
              json({{"name", "agent"}, {"mountPath", kAgentDir}, {"readOnly", true}}));
    EXPECT_EQ(pod["spec"]["containers"].size(), 1u);  // no sidecar sharing the pod
  }
}

// A pod spec has no ulimit: the policy's open_files goes to the agent, which sets it on each
// exec; a pod that lost the flag would run its commands with the runtime's default.
TEST(KubernetesPod, OpenFilesLimitIsTheAgentsFlag) {
  auto pods = BothPods();
  const std::vector<std::string> wants = {"1024", "4096"};  // the default policy's, FullSpec's
  for (size_t i = 0; i < pods.size(); ++i) {
    const json& args = pods[i]["spec"]["containers"][0]["args"];
    auto flag = std::find(args.begin(), args.end(), "--open-files");
    ASSERT_NE(flag, args.end()) << args.dump();
    ASSERT_NE(flag + 1, args.end());
    EXPECT_EQ(*(flag + 1), wants[i]);
  }
}

TEST(KubernetesPod, LabelsAndOwners) {
  auto pods = BothPods();
  for (const json& pod : pods) {
    EXPECT_EQ(pod["metadata"]["name"], "agentbox-sb-0123abcd");
    EXPECT_EQ(pod["metadata"]["labels"][kLabelManagedBy], "agentbox");
    EXPECT_EQ(pod["metadata"]["labels"][kLabelSandbox], "sb-0123abcd");
  }
  EXPECT_FALSE(pods[0]["metadata"].contains("ownerReferences"));
  EXPECT_EQ(pods[1]["metadata"]["ownerReferences"][0]["kind"], "Deployment");
  EXPECT_EQ(pods[1]["metadata"]["ownerReferences"][0]["controller"], true);
}

TEST(KubernetesPod, BadInputsAreRefused) {
  ManifestInputs in = testing::StrictInputs();
  for (const char* id : {"", "UPPER", "-lead", "trail-", "a.b", "x/y"}) {
    in.id = id;
    auto pod = PodManifest(testing::StrictSpec(), in);
    EXPECT_EQ(pod.status().code(), StatusCode::kInvalidArgument) << id;
  }
  in = testing::StrictInputs();
  in.agent_image.clear();
  EXPECT_EQ(PodManifest(testing::StrictSpec(), in).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace agentbox::kubernetes
