// ManifestInputs: what the manifests of one sandbox need beyond its SandboxSpec, and the
// metadata every one of them carries. Pure data and pure functions (nlohmann::json out).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "spec/sandbox_spec.h"

namespace agentbox::kubernetes {

// An owner of the sandbox's objects (the sandbox's token Secret, SecretOwner below): when it is
// deleted, the cluster's garbage collector deletes them too. blockOwnerDeletion is written as
// controller is.
struct OwnerReference {
  std::string api_version;  // "apps/v1"
  std::string kind;         // "Deployment"
  std::string name;
  std::string uid;
  bool controller = false;
};

// What the sandbox's objects carry of its record (object_names.h's kLabelName and annotations),
// so that another agentbox sharing the owner rebuilds the record from the cluster.
struct SandboxIdentity {
  std::string name;        // "" for none
  std::string created_at;  // RFC 3339; "": not annotated
  int64_t expires_at = 0;  // unix seconds; 0: no ttl
  bool warm = false;       // made for a warm pool: no one's until claimed (never adopted)
  // serve's tenant that owns it, and the tenant's name for it (SandboxRecord's); "" for none.
  std::string tenant;
  std::string tenant_name;
  // serve's MCP session the sandbox belongs to (SandboxRecord's mcp_session); "" for none.
  std::string mcp_session;
};

struct ManifestInputs {
  std::string id;  // the sandbox id (object_names.h CheckSandboxId)
  // The image holding the static agent at kAgentImagePath and a static cp at kAgentImageCopy
  // (deploy/README.md says how it is made).
  std::string agent_image;
  // The agent's arguments after its path (its TCP listener and the token file).
  std::vector<std::string> agent_args;
  // A seccomp profile file under the kubelet's seccomp dir ("agentbox.json": agentbox's rules
  // in the OCI format, `agentbox seccomp-profile`); "": the runtime's default profile.
  std::string seccomp_localhost_profile;
  std::string runtime_class_name;  // "gvisor", "kata"; "": the cluster's default runtime
  std::vector<OwnerReference> owners;
  // The namespace serve runs in, when it is not the sandbox's own: the NetworkPolicy admits
  // serve's pods from there. "": the sandbox's namespace.
  std::string server_namespace;
  // The agentbox.dev/owner label's value (object_names.h kLabelOwner); "": no such label.
  std::string owner;
  SandboxIdentity identity;
  // The pod of a shared SandboxTemplate (kubernetes/claim_manifests.h): no per-sandbox Secret is
  // mounted; the agent gets its token from its claim hello (agent_args: --token-by-claim).
  bool token_by_claim = false;
};

// The agent's arguments for a sandbox of `spec`, as docker's container gives them
// (docker/container_config.cc), but listening on the pod's TCP port with the Secret's token
// instead of a host socket, and with what a pod spec cannot say: the open_files limit, which
// the agent sets on each exec (a pod has no ulimit).
// token_by_claim: --token-by-claim instead of the token file (a SandboxTemplate's pod).
std::vector<std::string> AgentArgs(const SandboxSpec& spec, bool token_by_claim = false);

// The sandbox's token Secret, as the API server returned it from its create, as the owner of the
// sandbox's other objects (its pod and NetworkPolicy; a SandboxClaim, never the shared template):
// deleting the Secret (`kubectl delete secret agentbox-ID-token`) deletes them. Neither controller
// nor blocking: blockOwnerDeletion needs delete rights on the owner's finalizers where the
// OwnerReferencesPermissionEnforcement admission runs. kInternal without metadata.name and uid.
StatusOr<OwnerReference> SecretOwner(const nlohmann::json& created_secret);

// metadata {name, labels (managed-by, sandbox id, owner, name and tenant when set), ownerReferences
// when there are owners}.
nlohmann::json SandboxMetadata(const std::string& name, const ManifestInputs& in);

}  // namespace agentbox::kubernetes
