// The objects of a sandbox made through agent-sandbox's SandboxClaim
// (kubernetes-sigs/agent-sandbox, group extensions.agents.x-k8s.io, version v1alpha1 only: v1beta1
// changed the claim's shape): agentbox still writes the pod spec itself, strict by construction
// (pod_manifest.h), into a SandboxTemplate named from a hash of what it holds, shared by every
// sandbox of that shape; a NetworkPolicy per template; and per sandbox a SandboxClaim (plus the
// token Secret, sandbox_objects.h). A template is shared, so its pod mounts no token: its agent
// runs with
// --token-by-claim and takes its token from agentbox's claim hello (agent/hello_gate.h).
// Pure: inputs -> JSON; tests/unit/kubernetes/claim_manifests_test.cc and
// tests/golden/kubernetes/claim-template.json check them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "kubernetes/api_client.h"
#include "kubernetes/manifest_inputs.h"
#include "spec/sandbox_spec.h"

namespace agentbox::kubernetes {

inline constexpr const char* kAgentSandboxGroupVersion = "extensions.agents.x-k8s.io/v1alpha1";
inline constexpr const char* kAgentSandboxDiscoveryPath =
    "/apis/extensions.agents.x-k8s.io/v1alpha1";
inline constexpr ResourceKind kSandboxTemplates{kAgentSandboxDiscoveryPath, "sandboxtemplates"};
inline constexpr ResourceKind kSandboxClaims{kAgentSandboxDiscoveryPath, "sandboxclaims"};
// The label agent-sandbox's controller puts on a claim's pod: the claim's uid.
inline constexpr const char* kLabelClaimUid = "agents.x-k8s.io/claim-uid";
// On a template, its policy and its pods: the template's name (a selector for the policy).
inline constexpr const char* kLabelTemplate = "agentbox.dev/template";

// The SandboxTemplate of `spec`'s shape: metadata.name "agentbox-t-" and 20 hex digits of the
// SHA-256 of its pod template and policy (the same shape, the same name: created once, then
// AlreadyExists), labelled managed-by, owner and kLabelTemplate; spec.podTemplate {metadata:
// {labels: managed-by, owner, kLabelTemplate; the seccomp annotation}, spec: PodManifest's spec
// with token_by_claim and without activeDeadlineSeconds (a warm pod's start is not its
// sandbox's: the claim's lifecycle ends it)}, spec.networkPolicy {ingress: the agent's rule,
// egress: none}. The agent's args are AgentArgs(spec, token_by_claim) whatever in.agent_args
// says; in.id is not used but for PodManifest's check; in.identity not at all.
StatusOr<nlohmann::json> SandboxTemplateManifest(const SandboxSpec& spec, ManifestInputs in);

// The NetworkPolicy of a template's pods (named as the template, selecting kLabelTemplate):
// ingress only to the agent's port from serve, no egress, as a sandbox's own (sandbox_objects.h).
// agentbox makes it whether or not the controller makes one from spec.networkPolicy.
nlohmann::json TemplateNetworkPolicy(const ManifestInputs& in, const std::string& template_name);

// The SandboxClaim "agentbox-ID": labelled as every object of the sandbox, annotated with its
// record (pod_record.h RecordAnnotations: what adoption reads back), spec.sandboxTemplateRef,
// spec.warmpool ("default": a ready pod of a SandboxWarmPool of the template when there is one),
// and with a ttl spec.lifecycle {shutdownTime: expires_at, shutdownPolicy: Delete}.
StatusOr<nlohmann::json> SandboxClaimManifest(const SandboxSpec& spec, const ManifestInputs& in,
                                              const std::string& template_name);

// What a claim's status says of its sandbox.
struct ClaimBinding {
  bool ready = false;        // condition Ready is True
  std::string sandbox_name;  // status.sandbox.name
  std::vector<std::string> pod_ips;
  std::string detail;  // "Ready False: REASON: MESSAGE", for errors; "" when none
};
ClaimBinding ReadClaimBinding(const nlohmann::json& claim);

// Whether agent-sandbox's v1alpha1 extensions are served: the group version's APIResourceList
// (GET kAgentSandboxDiscoveryPath) lists sandboxclaims and sandboxtemplates. "" when they are,
// else what is missing, for the refusal's one line.
std::string MissingClaimResources(const nlohmann::json& resource_list);

}  // namespace agentbox::kubernetes
