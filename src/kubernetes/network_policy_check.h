// inspect --verify's check of a sandbox's NetworkPolicy, as the cluster holds it now.
//
// A pod's probe sees its interfaces (lo and the pod's own) but not what may pass through them:
// that is the NetworkPolicy agentbox made with the pod, enforced by the cluster's network plugin.
// This check reads the object back from the API server and passes only when its spec is still the
// one SandboxNetworkPolicy makes (ingress only to the agent's port from serve, no egress). Whether
// the network plugin enforces NetworkPolicies at all cannot be seen from here; docs/kubernetes.md
// says so. Pure: the backend hands in what the API server answered.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "core/verify.h"
#include "kubernetes/manifest_inputs.h"

namespace agentbox::kubernetes {

// "network_policy": `live` is the GET of the sandbox's NetworkPolicy (not_found: there is none;
// another error: unreadable, also a failure). An empty egress list the server leaves out of its
// answer counts as the empty list agentbox sent.
// `want`: the policy to compare with, when it is not the sandbox's own (a SandboxTemplate's,
// claim_manifests.h TemplateNetworkPolicy).
VerifyCheck NetworkPolicyCheck(const ManifestInputs& in, const StatusOr<nlohmann::json>& live,
                               const nlohmann::json* want = nullptr);

}  // namespace agentbox::kubernetes
