// SandboxManager's sandboxes kept beyond the state store (Backend::Adoptable): a lookup the store
// cannot answer adopts one, and a record whose box is gone from there is dropped (issue 20: on
// kubernetes the cluster is the truth, so several serve replicas, or one restarted on a fresh
// state dir, answer for every sandbox).
#include <ctime>

#include "core/sandbox_manager.h"

namespace agentbox {
namespace {

bool IsIdPrefix(const std::string& ref) {
  return ref.size() >= 4 && ref.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Those of `all` that `ref` names, as the state store resolves it: the id, else every sandbox of
// that name, else every id it is a prefix of.
std::vector<const SandboxRecord*> Matching(const std::vector<SandboxRecord>& all,
                                           const std::string& ref, bool* by_name) {
  std::vector<const SandboxRecord*> named, prefixed;
  for (const SandboxRecord& record : all) {
    if (record.id == ref) return {&record};
    if (!record.name.empty() && record.name == ref) named.push_back(&record);
    if (IsIdPrefix(ref) && record.id.rfind(ref, 0) == 0) prefixed.push_back(&record);
  }
  *by_name = !named.empty();
  return named.empty() ? prefixed : named;
}

}  // namespace

bool SandboxManager::Adopts(BackendKind kind) const {
  for (const BackendMaker& maker : makers_) {
    if (maker.kind == kind) return maker.adopts;
  }
  return false;
}

StatusOr<std::vector<SandboxRecord>> SandboxManager::Adoptable() {
  std::vector<SandboxRecord> all;
  for (const BackendMaker& maker : makers_) {
    if (!maker.adopts) continue;
    AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(maker.kind));
    AB_ASSIGN_OR_RETURN(std::vector<SandboxRecord> records, backend->Adoptable());
    for (SandboxRecord& record : records) all.push_back(std::move(record));
  }
  return all;
}

StatusOr<SandboxRecord> SandboxManager::Adopt(const std::string& ref, const Status& not_here) {
  auto all = Adoptable();
  if (!all.ok()) {
    // Not "not found": the sandbox may well be there, and a client should try again.
    return Unavailable(not_here.message() + " here, and " + all.status().message());
  }
  bool by_name = false;
  std::vector<const SandboxRecord*> matches = Matching(*all, ref, &by_name);
  if (matches.empty()) return not_here;
  if (matches.size() > 1) {
    return InvalidArgument(std::string(by_name ? "sandbox name" : "sandbox id prefix") + " \"" +
                           ref + "\" is ambiguous");
  }
  SandboxRecord record = *matches[0];
  record.state_dir = store_.SandboxDir(record.id);
  record.adopted = true;
  AB_RETURN_IF_ERROR(store_.Adopt(record));
  return record;
}

StatusOr<SandboxStatus> SandboxManager::FindTenantSandbox(const std::string& tenant,
                                                          const std::string& ref) {
  const Status missing = NotFound("no sandbox \"" + ref + "\"");
  if (tenant.empty() || ref.empty()) return missing;
  AB_ASSIGN_OR_RETURN(std::vector<SandboxRecord> all, Adoptable());
  std::vector<const SandboxRecord*> named, prefixed;
  for (const SandboxRecord& record : all) {
    if (record.tenant != tenant) continue;  // another tenant's is as good as missing
    if (record.id == ref) {
      named = {&record};
      break;
    }
    if (!record.tenant_name.empty() && record.tenant_name == ref) named.push_back(&record);
    if (IsIdPrefix(ref) && record.id.rfind(ref, 0) == 0) prefixed.push_back(&record);
  }
  const bool by_name = !named.empty();
  const std::vector<const SandboxRecord*>& matches = by_name ? named : prefixed;
  if (matches.empty()) return missing;
  if (matches.size() > 1) {
    // Two replicas each made one of that name at once (tenants.h: the race it allows).
    return InvalidArgument(std::string(by_name ? "sandbox name" : "sandbox id prefix") + " \"" +
                           ref + "\" is ambiguous");
  }
  SandboxRecord record = *matches[0];
  if (!store_.Load(record.id).ok()) {
    record.state_dir = store_.SandboxDir(record.id);
    record.adopted = true;
    AB_RETURN_IF_ERROR(store_.Adopt(record));
  }
  return Find(record.id);
}

bool SandboxManager::DropIfGone(const SandboxRecord& record, bool alive) {
  if (alive) return false;
  auto backend = BackendFor(record.backend);
  return backend.ok() && (*backend)->Gone(record) && Destroy(record).ok();
}

}  // namespace agentbox
