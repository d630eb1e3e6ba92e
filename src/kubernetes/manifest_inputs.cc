#include "kubernetes/manifest_inputs.h"

#include "kubernetes/object_names.h"

namespace agentbox::kubernetes {

nlohmann::json SandboxMetadata(const std::string& name, const ManifestInputs& in) {
  nlohmann::json meta = {
      {"name", name},
      {"labels", {{kLabelManagedBy, kManagedByValue}, {kLabelSandbox, in.id}}},
  };
  if (!in.owner.empty()) meta["labels"][kLabelOwner] = in.owner;
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
