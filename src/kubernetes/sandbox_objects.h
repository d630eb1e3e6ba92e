// The objects beside a sandbox's pod: the Secret holding its agent's token (one per sandbox,
// never shared) and the NetworkPolicy that shuts the pod off from everything but serve.
// Pure: inputs -> JSON for POST; tests/unit/kubernetes/sandbox_objects_test.cc and the golden
// files check them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "kubernetes/manifest_inputs.h"

namespace agentbox::kubernetes {

// Secret "agentbox-ID-token" with data.token = the token (base64, as the API wants) and, when
// given, data.env = create's env (kubernetes/pod_record.h EnvSecretValue), immutable.
// kInvalidArgument for a bad id or an empty token.
StatusOr<nlohmann::json> AgentTokenSecret(const ManifestInputs& in, const std::string& token,
                                          const std::string& env_json = "");

// NetworkPolicy "agentbox-ID" on the sandbox's pod: Ingress and Egress both governed; the only
// ingress is TCP to the agent's port from pods labelled agentbox.dev/role=server (in
// in.server_namespace when set); no egress at all (the allowlist proxy comes with issue 20's
// egress step). kInvalidArgument for a bad id.
StatusOr<nlohmann::json> SandboxNetworkPolicy(const ManifestInputs& in);

// That policy's one ingress rule: TCP to the agent's port from serve's pods (in
// in.server_namespace when set). Shared with a SandboxTemplate's policy (claim_manifests.h).
nlohmann::json AgentIngressRule(const ManifestInputs& in);

}  // namespace agentbox::kubernetes
