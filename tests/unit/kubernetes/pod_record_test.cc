// The record of a kubernetes sandbox rebuilt from its pod and Secret (kubernetes/pod_record.h),
// as another serve replica, or serve restarted on an empty state dir, does: every field it
// needs comes back, the token and create's env only from the Secret, never an annotation.
#include "kubernetes/pod_record.h"

#include <gtest/gtest.h>

#include "kubernetes/object_names.h"
#include "kubernetes/pod_manifest.h"
#include "kubernetes/sandbox_objects.h"
#include "manifest_fixtures.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

constexpr char kToken[] = "0123456789abcdef0123456789abcdef-token";

SandboxSpec SpecWithEnv() {
  SandboxSpec spec = testing::FullSpec();
  spec.backend = BackendKind::kKubernetes;
  spec.env = {{"API_KEY", "env-secret-value"}, {"MODE", "ci"}};
  spec.cwd = "/workspace/src";
  return spec;
}

ManifestInputs Inputs() {
  ManifestInputs in = testing::FullInputs();
  in.id = "0a1b2c3d4e5f";
  return in;
}

// The pod and Secret as the API server would return them once the pod runs.
std::pair<json, json> Objects(const SandboxSpec& spec, const ManifestInputs& in) {
  json pod = PodManifest(spec, in).value();
  pod["metadata"]["namespace"] = "agentbox-sandboxes";
  pod["status"] = {{"phase", "Running"}, {"podIP", "10.88.0.7"}};
  json secret = AgentTokenSecret(in, kToken, EnvSecretValue(spec)).value();
  return {pod, secret};
}

TEST(KubernetesPodRecord, TheRecordComesBackFromPodAndSecret) {
  const SandboxSpec spec = SpecWithEnv();
  const ManifestInputs in = Inputs();
  auto [pod, secret] = Objects(spec, in);
  auto record = RecordFromObjects(pod, secret);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->id, "0a1b2c3d4e5f");
  EXPECT_EQ(record->name, "build.web");
  EXPECT_EQ(record->backend, BackendKind::kKubernetes);
  EXPECT_EQ(record->created_at, "2026-12-05T14:00:00Z");
  EXPECT_EQ(record->expires_at, 1796480000);
  EXPECT_EQ(record->agent_socket, "tcp:10.88.0.7:7070");
  EXPECT_EQ(record->agent_token, kToken);
  EXPECT_EQ(record->kube_pod, "agentbox-0a1b2c3d4e5f");
  EXPECT_EQ(record->spec.kube.namespace_name, "agentbox-sandboxes");
  EXPECT_TRUE(record->workspace_temporary);
  EXPECT_EQ(record->workspace, "");
  // The whole policy, env and user included, as the creator's record holds it.
  SandboxSpec want = spec;
  want.kube.namespace_name = "agentbox-sandboxes";
  EXPECT_EQ(record->spec.env, want.env);
  EXPECT_EQ(record->spec.user, want.user);
  EXPECT_EQ(record->spec.limits.memory_bytes, want.limits.memory_bytes);
  EXPECT_EQ(record->spec.ttl_seconds, want.ttl_seconds);
  EXPECT_EQ(record->spec.cwd, "/workspace/src");
  EXPECT_EQ(record->spec.random_seed, want.random_seed);
  EXPECT_EQ(record->spec.backend, BackendKind::kKubernetes);
}

TEST(KubernetesPodRecord, TokenAndEnvAreNeverAnnotations) {
  auto [pod, secret] = Objects(SpecWithEnv(), Inputs());
  const std::string metadata = pod["metadata"].dump();
  EXPECT_EQ(metadata.find(kToken), std::string::npos);
  EXPECT_EQ(metadata.find("env-secret-value"), std::string::npos);
  EXPECT_EQ(pod.dump().find("env-secret-value"), std::string::npos);
  EXPECT_TRUE(secret["data"].contains(kSecretEnvKey));
}

TEST(KubernetesPodRecord, NameIsASelectableLabelOnEveryObject) {
  ManifestInputs in = Inputs();
  auto [pod, secret] = Objects(SpecWithEnv(), in);
  EXPECT_EQ(pod["metadata"]["labels"][kLabelName], "build.web");
  EXPECT_EQ(secret["metadata"]["labels"][kLabelName], "build.web");
  EXPECT_EQ(pod["metadata"]["labels"][kLabelOwner], "replicas-of-serve");
  // Names a label value cannot hold are hashed; the annotation keeps the name itself.
  in.identity.name = std::string(64, 'n');
  auto [long_pod, unused] = Objects(SpecWithEnv(), in);
  const std::string label = long_pod["metadata"]["labels"][kLabelName];
  EXPECT_EQ(label.rfind("h.", 0), 0u);
  EXPECT_TRUE(IsLabelValue(label));
  EXPECT_EQ(RecordFromObjects(long_pod, secret)->name, std::string(64, 'n'));
  EXPECT_NE(NameLabelValue("web."), "web.");
  EXPECT_TRUE(IsLabelValue(NameLabelValue("web.")));
}

// serve's tenant (issue 20: replicas share tenants through the cluster): a label on all three
// objects, so `-l agentbox.dev/tenant=a` selects a tenant's; the tenant and its own name for the
// sandbox (not the record's name) as annotations, and back into the record.
TEST(KubernetesPodRecord, TenantIsALabelOnEveryObjectAndComesBack) {
  ManifestInputs in = Inputs();
  in.identity.name = "";
  in.identity.tenant = "team-a";
  in.identity.tenant_name = "build";
  auto [pod, secret] = Objects(SpecWithEnv(), in);
  const json policy = SandboxNetworkPolicy(in).value();
  for (const json* object : std::initializer_list<const json*>{&pod, &secret, &policy}) {
    EXPECT_EQ((*object)["metadata"]["labels"][kLabelTenant], "team-a");
    EXPECT_FALSE((*object)["metadata"]["labels"].contains(kLabelName));
  }
  EXPECT_EQ(pod["metadata"]["annotations"][kAnnotationTenant], "team-a");
  EXPECT_EQ(pod["metadata"]["annotations"][kAnnotationTenantName], "build");
  auto record = RecordFromObjects(pod, secret);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->tenant, "team-a");
  EXPECT_EQ(record->tenant_name, "build");
  EXPECT_EQ(record->name, "");  // a tenant's name is its own, never the store's
  // The record's identity is what Create writes: the round trip of a made sandbox.
  const SandboxIdentity again = IdentityOf(*record);
  EXPECT_EQ(again.tenant, "team-a");
  EXPECT_EQ(again.tenant_name, "build");
}

// An MCP session's sandbox where serve's replicas share sessions: the session's key (a digest,
// never the id) labels all three objects, so any replica finds the session's sandbox, and comes
// back into the record; a sandbox of no session has no such label.
TEST(KubernetesPodRecord, McpSessionKeyIsALabelOnEveryObjectAndComesBack) {
  const std::string key(48, 'c');
  ManifestInputs in = Inputs();
  in.identity.tenant = "team-a";
  in.identity.mcp_session = key;
  auto [pod, secret] = Objects(SpecWithEnv(), in);
  const json policy = SandboxNetworkPolicy(in).value();
  for (const json* object : std::initializer_list<const json*>{&pod, &secret, &policy}) {
    EXPECT_EQ((*object)["metadata"]["labels"][kLabelMcpSession], key);
  }
  auto record = RecordFromObjects(pod, secret);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->mcp_session, key);
  EXPECT_EQ(IdentityOf(*record).mcp_session, key);
  auto [plain_pod, plain_secret] = Objects(SpecWithEnv(), Inputs());
  EXPECT_FALSE(plain_pod["metadata"]["labels"].contains(kLabelMcpSession));
  EXPECT_EQ(RecordFromObjects(plain_pod, plain_secret)->mcp_session, "");
}

TEST(KubernetesPodRecord, NoTenantNoTenantLabelOrAnnotation) {
  auto [pod, secret] = Objects(SpecWithEnv(), Inputs());
  EXPECT_FALSE(pod["metadata"]["labels"].contains(kLabelTenant));
  EXPECT_FALSE(pod["metadata"]["annotations"].contains(kAnnotationTenant));
  EXPECT_FALSE(pod["metadata"]["annotations"].contains(kAnnotationTenantName));
  auto record = RecordFromObjects(pod, secret);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->tenant, "");
  EXPECT_EQ(record->tenant_name, "");
}

TEST(KubernetesPodRecord, TenantLabelIsHashedWhenNoLabelValueAndMustMatch) {
  ManifestInputs in = Inputs();
  in.identity.tenant = std::string(64, 't');
  in.identity.tenant_name = "w";
  auto [pod, secret] = Objects(SpecWithEnv(), in);
  const std::string label = pod["metadata"]["labels"][kLabelTenant];
  EXPECT_EQ(label.rfind("h.", 0), 0u);
  EXPECT_TRUE(IsLabelValue(label));
  EXPECT_EQ(RecordFromObjects(pod, secret)->tenant, std::string(64, 't'));
  // An annotation edited to another tenant than the label says is refused, not believed.
  json forged = pod;
  forged["metadata"]["annotations"][kAnnotationTenant] = "team-b";
  EXPECT_EQ(RecordFromObjects(forged, secret).status().code(), StatusCode::kInvalidArgument);
}

TEST(KubernetesPodRecord, PodWithoutIpIsADeadSandbox) {
  auto [pod, secret] = Objects(SpecWithEnv(), Inputs());
  pod["status"] = {{"phase", "Failed"}};
  auto record = RecordFromObjects(pod, secret);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->agent_socket, "");
}

TEST(KubernetesPodRecord, WarmAndForeignPodsAreNotRecords) {
  ManifestInputs in = Inputs();
  in.identity.warm = true;
  auto [warm, secret] = Objects(SpecWithEnv(), in);
  EXPECT_EQ(RecordFromObjects(warm, secret).status().code(), StatusCode::kFailedPrecondition);
  auto [pod, unused] = Objects(SpecWithEnv(), Inputs());
  json bare = pod;
  bare["metadata"].erase("annotations");
  EXPECT_EQ(RecordFromObjects(bare, secret).status().code(), StatusCode::kInvalidArgument);
  json no_token = secret;
  no_token["data"].erase(kAgentTokenKey);
  EXPECT_EQ(RecordFromObjects(pod, no_token).status().code(), StatusCode::kInvalidArgument);
}

TEST(KubernetesPodRecord, SecretWithoutEnvIsAnEmptyEnv) {
  SandboxSpec spec = SpecWithEnv();
  spec.env.clear();
  auto [pod, secret] = Objects(spec, Inputs());
  EXPECT_FALSE(secret["data"].contains(kSecretEnvKey));
  auto record = RecordFromObjects(pod, secret);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_TRUE(record->spec.env.empty());
}

TEST(KubernetesPodRecord, LiveMeansNotEndedNotDeletedNotExpired) {
  auto [pod, secret] = Objects(SpecWithEnv(), Inputs());
  const int64_t expires = 1796480000;
  EXPECT_TRUE(PodIsLive(pod, expires - 1));
  EXPECT_FALSE(PodIsLive(pod, expires));
  json pending = pod;
  pending["status"] = {{"phase", "Pending"}};
  EXPECT_TRUE(PodIsLive(pending, expires - 1));
  for (const char* phase : {"Succeeded", "Failed"}) {
    json ended = pod;
    ended["status"]["phase"] = phase;
    EXPECT_FALSE(PodIsLive(ended, expires - 1)) << phase;
  }
  json deleting = pod;
  deleting["metadata"]["deletionTimestamp"] = "2026-12-05T15:00:00Z";
  EXPECT_FALSE(PodIsLive(deleting, expires - 1));
  json forever = pod;
  forever["metadata"]["annotations"][kAnnotationExpiresAt] = "0";
  EXPECT_TRUE(PodIsLive(forever, expires * 2));
}

}  // namespace
}  // namespace agentbox::kubernetes
