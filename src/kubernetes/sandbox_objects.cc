#include "kubernetes/sandbox_objects.h"

#include "base/base64.h"
#include "kubernetes/object_names.h"

namespace agentbox::kubernetes {

using nlohmann::json;

StatusOr<json> AgentTokenSecret(const ManifestInputs& in, const std::string& token,
                                const std::string& env_json) {
  AB_RETURN_IF_ERROR(CheckSandboxId(in.id));
  if (token.empty()) return InvalidArgument("an empty agent token for sandbox " + in.id);
  json data = {{kAgentTokenKey, Base64Encode(token)}};
  if (!env_json.empty()) data[kSecretEnvKey] = Base64Encode(env_json);
  return json{
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", SandboxMetadata(SecretName(in.id), in)},
      {"type", "Opaque"},
      {"immutable", true},
      {"data", data},
  };
}

json AgentIngressRule(const ManifestInputs& in) {
  json peer = {{"podSelector", {{"matchLabels", {{kLabelRole, kRoleServer}}}}}};
  if (!in.server_namespace.empty()) {
    peer["namespaceSelector"] = {
        {"matchLabels", {{"kubernetes.io/metadata.name", in.server_namespace}}}};
  }
  return {
      {"from", {peer}},
      {"ports", {{{"protocol", "TCP"}, {"port", kAgentPort}}}},
  };
}

StatusOr<json> SandboxNetworkPolicy(const ManifestInputs& in) {
  AB_RETURN_IF_ERROR(CheckSandboxId(in.id));
  json spec = {
      {"podSelector", {{"matchLabels", {{kLabelSandbox, in.id}}}}},
      {"policyTypes", {"Ingress", "Egress"}},
      {"ingress", {AgentIngressRule(in)}},
      {"egress", json::array()},  // governed and empty: no egress at all
  };
  return json{{"apiVersion", "networking.k8s.io/v1"},
              {"kind", "NetworkPolicy"},
              {"metadata", SandboxMetadata(PodName(in.id), in)},
              {"spec", spec}};
}

}  // namespace agentbox::kubernetes
