#include "kubernetes/manifest_inputs.h"

#include "kubernetes/object_names.h"
#include "policy/image_user.h"
#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"

namespace agentbox::kubernetes {

std::vector<std::string> AgentArgs(const SandboxSpec& spec, bool token_by_claim) {
  std::vector<std::string> args;
  if (spec.user != SandboxUser{})
    args.insert(args.end(), {kAgentUserFlag, SandboxUserText(spec.user)});
  if (spec.random_seed) {
    args.insert(args.end(), {kAgentRandomSeedFlag, std::to_string(*spec.random_seed)});
  }
  args.insert(args.end(), {kAgentOpenFilesFlag, std::to_string(spec.open_files)});
  args.insert(args.end(), {kAgentListenTcpFlag, "0.0.0.0:" + std::to_string(kAgentPort)});
  if (token_by_claim) {
    args.push_back(kAgentTokenByClaimFlag);
  } else {
    args.insert(args.end(),
                {kAgentTokenFileFlag, std::string(kAgentTokenDir) + "/" + kAgentTokenKey});
  }
  // The egress relay (agent/egress_relay.h), reached only through the agent's port with the
  // token: the host's proxy serves the pod's commands through it; the pod gets no egress.
  if (!spec.allow_hosts.empty()) args.push_back(kAgentEgressRelayTcpFlag);
  return args;
}

StatusOr<OwnerReference> SecretOwner(const nlohmann::json& created_secret) {
  const nlohmann::json meta = created_secret.value("metadata", nlohmann::json::object());
  OwnerReference owner{"v1", "Secret", meta.value("name", ""), meta.value("uid", ""), false};
  if (owner.name.empty() || owner.uid.empty()) {
    return Internal("the API server returned the Secret it made without metadata.name and uid");
  }
  return owner;
}

nlohmann::json SandboxMetadata(const std::string& name, const ManifestInputs& in) {
  nlohmann::json meta = {
      {"name", name},
      {"labels", {{kLabelManagedBy, kManagedByValue}, {kLabelSandbox, in.id}}},
  };
  if (!in.owner.empty()) meta["labels"][kLabelOwner] = in.owner;
  if (!in.identity.name.empty()) meta["labels"][kLabelName] = NameLabelValue(in.identity.name);
  if (!in.identity.tenant.empty()) {
    meta["labels"][kLabelTenant] = NameLabelValue(in.identity.tenant);
  }
  if (!in.identity.mcp_session.empty()) {
    meta["labels"][kLabelMcpSession] = in.identity.mcp_session;
  }
  if (in.owners.empty()) return meta;
  nlohmann::json owners = nlohmann::json::array();
  for (const OwnerReference& o : in.owners) {
    owners.push_back({{"apiVersion", o.api_version},
                      {"kind", o.kind},
                      {"name", o.name},
                      {"uid", o.uid},
                      {"controller", o.controller},
                      {"blockOwnerDeletion", o.controller}});
  }
  meta["ownerReferences"] = owners;
  return meta;
}

}  // namespace agentbox::kubernetes
