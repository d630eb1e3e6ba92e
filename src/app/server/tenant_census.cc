#include "app/server/tenant_census.h"

namespace agentbox {
namespace {

// The tenant's sandboxes the adopting backends hold (the cluster's), by id and by its name.
StatusOr<TenantRegistry::Elsewhere> ClusterSandboxes(SandboxManager& manager,
                                                     const std::string& tenant) {
  AB_ASSIGN_OR_RETURN(std::vector<SandboxRecord> kept, manager.Adoptable());
  TenantRegistry::Elsewhere elsewhere;
  for (const SandboxRecord& record : kept) {
    if (record.tenant != tenant) continue;
    elsewhere.ids.insert(record.id);
    if (!record.tenant_name.empty()) elsewhere.names.insert(record.tenant_name);
  }
  return elsewhere;
}

// The store's records of the tenant's sandboxes on an adopting backend that the cluster's list
// did not show (removed through another replica, or no cluster is named in the environment):
// looked up once, which drops a record whose box is gone (SandboxManager::Find), so a sandbox
// removed elsewhere stops counting here. Outside the registry's lock: Find may ask the cluster.
void DropStaleRecords(TenantRegistry& tenants, SandboxManager& manager, const Caller& caller,
                      const TenantRegistry::Elsewhere& elsewhere) {
  for (const SandboxRecord& record : manager.store().List()) {
    if (!manager.Adopts(record.backend) || elsewhere.ids.count(record.id) > 0) continue;
    if (record.tenant != caller.tenant && tenants.OwnerOf(record.id) != caller.tenant) continue;
    (void)manager.Find(record.id);
  }
}

}  // namespace

Status ReserveForTenant(TenantRegistry& tenants, SandboxManager& manager, const Caller& caller,
                        const std::string& name) {
  TenantRegistry::Elsewhere elsewhere;
  if (!caller.anonymous() && (caller.max_sandboxes != 0 || !name.empty())) {
    auto cluster = ClusterSandboxes(manager, caller.tenant);
    if (!cluster.ok()) {
      return Unavailable("cannot count tenant " + caller.tenant +
                         "'s sandboxes: " + cluster.status().message());
    }
    elsewhere = std::move(cluster).value();
    DropStaleRecords(tenants, manager, caller, elsewhere);
  }
  StateStore& store = manager.store();
  return tenants.Reserve(
      caller, [&store](const std::string& id) { return store.Load(id).ok(); }, name, elsewhere);
}

}  // namespace agentbox
