// serve's MCP session as the cluster keeps it (kubernetes/mcp_session_secret.h): one Secret per
// session named by its key, labelled for a selector, holding no data and never the session id;
// read back only when it is this owner's, and refused when edited by hand.
#include "kubernetes/mcp_session_secret.h"

#include <gtest/gtest.h>

#include <set>

#include "kubernetes/object_names.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

const std::string kKey(48, 'a');

TEST(KubernetesMcpSessionSecret, NamedByTheKeyLabelledAndRoundTrips) {
  json secret =
      McpSessionSecret({kKey, "team-a"}, "agentbox-serve", "2026-12-06T01:00:00Z").value();
  EXPECT_EQ(secret["kind"], "Secret");
  EXPECT_EQ(secret["metadata"]["name"], "agentbox-mcp-" + kKey);
  EXPECT_TRUE(IsLabelValue(secret["metadata"]["labels"][kLabelMcpSession].get<std::string>()));
  const json labels = secret["metadata"]["labels"];
  EXPECT_EQ(labels[kLabelManagedBy], kManagedByValue);
  EXPECT_EQ(labels[kLabelOwner], "agentbox-serve");
  EXPECT_EQ(labels[kLabelTenant], "team-a");
  EXPECT_FALSE(labels.contains(kLabelSandbox));  // never taken for a sandbox's by gc or adoption
  EXPECT_FALSE(secret.contains("data"));
  EXPECT_EQ(secret["metadata"]["annotations"][kAnnotationCreatedAt], "2026-12-06T01:00:00Z");
  auto back = McpSessionFromSecret(secret, "agentbox-serve");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->key, kKey);
  EXPECT_EQ(back->tenant, "team-a");
}

TEST(KubernetesMcpSessionSecret, AnonymousTenantHasNoTenantLabel) {
  json secret = McpSessionSecret({kKey, ""}, "o", "t").value();
  EXPECT_FALSE(secret["metadata"]["labels"].contains(kLabelTenant));
  auto back = McpSessionFromSecret(secret, "o");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->tenant, "");
}

TEST(KubernetesMcpSessionSecret, AnotherOwnersIsNotFound) {
  json secret = McpSessionSecret({kKey, "a"}, "owner-1", "t").value();
  EXPECT_EQ(McpSessionFromSecret(secret, "owner-2").status().code(), StatusCode::kNotFound);
}

TEST(KubernetesMcpSessionSecret, EditedByHandIsRefused) {
  json secret = McpSessionSecret({kKey, "team-a"}, "o", "t").value();
  json tenant = secret;
  tenant["metadata"]["annotations"][kAnnotationTenant] = "team-b";  // label still says team-a
  EXPECT_EQ(McpSessionFromSecret(tenant, "o").status().code(), StatusCode::kInvalidArgument);
  json renamed = secret;
  renamed["metadata"]["name"] = "agentbox-mcp-other";
  EXPECT_EQ(McpSessionFromSecret(renamed, "o").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(McpSessionSecret({"not a label!", "a"}, "o", "t").status().code(),
            StatusCode::kInvalidArgument);
}

// gc's rule: a session's record is removed once no live pod carries its key and it has been in
// the cluster an hour; a young one, one whose sandbox lives, and other Secrets are kept.
TEST(KubernetesMcpSessionSecret, AbandonedOnlyWithoutASandboxAndAfterAnHour) {
  json secret = McpSessionSecret({kKey, "team-a"}, "o", "t").value();
  secret["metadata"]["creationTimestamp"] = "2026-12-06T01:00:00Z";
  const int64_t made = 1796518800;  // 2026-12-06T01:00:00Z
  const std::set<std::string> none, its_sandbox = {kKey};
  EXPECT_FALSE(McpSessionAbandoned(secret, none, made + kAbandonedMcpSessionSeconds - 1));
  EXPECT_TRUE(McpSessionAbandoned(secret, none, made + kAbandonedMcpSessionSeconds));
  EXPECT_FALSE(McpSessionAbandoned(secret, its_sandbox, made + 10 * kAbandonedMcpSessionSeconds));
  json no_time = secret;
  no_time["metadata"].erase("creationTimestamp");
  EXPECT_FALSE(McpSessionAbandoned(no_time, none, made + 10 * kAbandonedMcpSessionSeconds));
  json sandbox_secret = secret;  // a sandbox's token Secret is never a session's record
  sandbox_secret["metadata"]["labels"][kLabelSandbox] = "0123456789ab";
  EXPECT_FALSE(McpSessionAbandoned(sandbox_secret, none, made + 10 * kAbandonedMcpSessionSeconds));
  json renamed = secret;
  renamed["metadata"]["name"] = "agentbox-token";
  EXPECT_FALSE(McpSessionAbandoned(renamed, none, made + 10 * kAbandonedMcpSessionSeconds));
}

}  // namespace
}  // namespace agentbox::kubernetes
