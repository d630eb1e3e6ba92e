// The names agentbox gives what it makes in a cluster, and the paths its pods are built around:
// one place, so the manifests, the REST client's selectors, `gc` and deploy/ agree.
//
// Every object of a sandbox carries kLabelManagedBy=kManagedByValue and kLabelSandbox=ID, so a
// label selector finds all of them and nothing else; serve's own pods carry kLabelRole=kRoleServer,
// the only pods a sandbox's NetworkPolicy lets in.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox::kubernetes {

inline constexpr const char* kLabelManagedBy = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "agentbox";
inline constexpr const char* kLabelSandbox = "agentbox.dev/sandbox";
inline constexpr const char* kLabelRole = "agentbox.dev/role";
inline constexpr const char* kRoleServer = "server";
// Which agentbox (host and state dir, hashed) made a sandbox's objects: `gc` removes only its
// own, never those of another state dir or serve replica sharing the namespace.
inline constexpr const char* kLabelOwner = "agentbox.dev/owner";
// The sandbox's name, when it has one, as a label (NameLabelValue) so it can be selected; the
// name itself is the pod's kAnnotationName.
inline constexpr const char* kLabelName = "agentbox.dev/name";
// The tenant of `agentbox serve` that owns the sandbox (http/tenants.h), as a label
// (NameLabelValue of the tenant's id from the tokens file, never a token), on all three objects:
// a tenant's objects are one selector away (`kubectl get pods -l agentbox.dev/tenant=a`).
inline constexpr const char* kLabelTenant = "agentbox.dev/tenant";
// serve's MCP session a sandbox belongs to, where the replicas share sessions: the session's key
// (a digest of its id, never the id), on the sandbox's three objects and on the session's own
// record, the Secret kMcpSessionPrefix + key (mcp_session_secret.h).
inline constexpr const char* kLabelMcpSession = "agentbox.dev/mcp-session";
inline constexpr const char* kMcpSessionPrefix = "agentbox-mcp-";
// What the pod carries of the sandbox's record, so any agentbox sharing the owner rebuilds it
// from the cluster (kubernetes/pod_record.h): its name, when it was made and ends (RFC 3339;
// unix seconds, "0" for no ttl), its policy without env (JSON), and "true" on a warm pool's pod.
// The token and create's env are the Secret's (kAgentTokenKey, kSecretEnvKey), never annotations.
inline constexpr const char* kAnnotationName = "agentbox.dev/name";
inline constexpr const char* kAnnotationCreatedAt = "agentbox.dev/created-at";
inline constexpr const char* kAnnotationExpiresAt = "agentbox.dev/expires-at";
inline constexpr const char* kAnnotationSpec = "agentbox.dev/spec";
inline constexpr const char* kAnnotationWarm = "agentbox.dev/warm";
// The tenant (exactly, beside kLabelTenant's label value) and the tenant's name for the sandbox,
// which is not kAnnotationName: a tenant's names are its own (two tenants may both say "build").
inline constexpr const char* kAnnotationTenant = "agentbox.dev/tenant";
inline constexpr const char* kAnnotationTenantName = "agentbox.dev/tenant-name";
// "app.kubernetes.io/managed-by=agentbox": every object agentbox made, for `gc`.
std::string ManagedSelector();
// "...,agentbox.dev/sandbox=ID": every object of one sandbox.
std::string SandboxSelector(std::string_view id);
// "...,agentbox.dev/owner=OWNER": every object one agentbox made, for its `gc`.
std::string OwnerSelector(std::string_view owner);

// The agent inside each pod: copied by the init container from the agent image into an emptyDir
// (kAgentDir, read-only in the sandbox container) and run from there as PID 1.
inline constexpr const char* kAgentDir = "/.agentbox";
inline constexpr const char* kAgentPath = "/.agentbox/agentbox-agent";
inline constexpr const char* kAgentImagePath = "/agentbox-agent";  // in the agent image
inline constexpr const char* kAgentImageCopy = "/bin/cp";          // ditto (static busybox)
inline constexpr int kAgentPort = 7070;
// The per-sandbox Secret's key and where the pod sees it (kAgentTokenDir/kAgentTokenKey).
inline constexpr const char* kAgentTokenKey = "token";
inline constexpr const char* kAgentTokenDir = "/.agentbox-token";
// The Secret's key holding create's env (a JSON object), which may hold credentials too.
inline constexpr const char* kSecretEnvKey = "env";

// Sandbox ids become object names and label values: DNS-1123 labels. OK for 1-50 characters of
// [a-z0-9-] that start and end alphanumeric (so "agentbox-ID-token" stays within 63); else
// kInvalidArgument naming the id.
Status CheckSandboxId(std::string_view id);
// A sandbox name (1-64 of [A-Za-z0-9_.-]) as a label value: itself when it is one (at most 63
// characters, alphanumeric at both ends), else "h." and 40 hex digits of its SHA-256.
std::string NameLabelValue(std::string_view name);
// A label value (an owner given by the operator): 1-63 of [A-Za-z0-9_.-], alphanumeric ends.
bool IsLabelValue(std::string_view value);

// "agentbox-ID": the pod's and the NetworkPolicy's name.
std::string PodName(std::string_view id);
// "agentbox-ID-token": the Secret's name.
std::string SecretName(std::string_view id);

}  // namespace agentbox::kubernetes
