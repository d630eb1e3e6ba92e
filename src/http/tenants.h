// Which tenant owns which sandbox, what the tenant calls it, and how many commands each tenant
// runs right now.
//
// The server records the tenant of every sandbox it creates in <state dir>/tenants.json
// ({"sandboxes": {"<id>": "<tenant>"}, "names": {"<id>": "<name>"}}), written atomically after
// each change, so ownership survives a restart. The sandbox of an MCP session over HTTP is its
// tenant's too (counted, listed), from its creation to the session's end. A sandbox not in the
// map (made by the CLI, or by `agentbox mcp` over stdio) belongs to no tenant: only the
// anonymous caller (no tokens file) sees it.
//
// Names are per tenant: tenant a's "build" and tenant b's "build" are two sandboxes, and a name
// another tenant holds is never a 409 (that would tell that the other tenant exists and what it
// calls its sandboxes). A tenant's name lives here only; the sandbox itself is made without a
// name in the state store. The anonymous caller uses the state store's names, as the CLI does.
//
// The sandbox's record carries its tenant and the tenant's name too (SandboxRecord::tenant,
// tenant_name), and on kubernetes so do its objects in the cluster: a replica of serve that did
// not make a sandbox learns whose it is from the record it adopts (Owns, NameFor, Learn), and a
// create counts, beside this map's entries, the tenant's sandboxes the cluster holds (Reserve's
// `elsewhere`). What a create on another replica has in flight, from its count to its pod's
// creation, is not seen: two replicas may together exceed max_sandboxes, or both make one
// name, by the creates in flight at once on the others (docs/kubernetes.md).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/status.h"
#include "core/sandbox_record.h"
#include "http/auth.h"

namespace agentbox {

class TenantRegistry {
 public:
  // `path` "" keeps the map in memory only (tests).
  explicit TenantRegistry(std::string path) : path_(std::move(path)) {}

  struct Entries {
    std::map<std::string, std::string> owners;  // sandbox id -> tenant
    std::map<std::string, std::string> names;   // sandbox id -> the tenant's name for it
  };
  // Reads the file; a missing file is an empty map.
  Status Load();
  // The file format above, and back (pure).
  static StatusOr<Entries> ParseJson(std::string_view text);
  static std::string ToJson(const Entries& entries);

  // True when the caller may see sandbox `id`.
  bool Visible(const Caller& caller, const std::string& id) const;
  // The id of the sandbox caller's tenant calls `name`, if any (never the anonymous caller's).
  std::optional<std::string> Named(const Caller& caller, const std::string& name) const;
  // The tenant's name for sandbox `id` ("" when it has none).
  std::string NameOf(const std::string& id) const;
  // The tenant that owns sandbox `id` ("" when none does).
  std::string OwnerOf(const std::string& id) const;
  // Visible and NameOf for a record: this map's entry when it has one, else the record's own
  // tenant and name (one made through another replica, adopted from the cluster).
  bool Owns(const Caller& caller, const SandboxRecord& record) const;
  std::string NameFor(const SandboxRecord& record) const;
  // Records the record's tenant and name when this map has no owner for it (saved): the next
  // lookup by that name is this map's.
  void Learn(const SandboxRecord& record);

  // The tenant's sandboxes kept beyond this state dir (the cluster's), which Reserve counts with
  // its own entries, each once.
  struct Elsewhere {
    std::set<std::string> ids;
    std::set<std::string> names;  // the tenant's names for them
  };

  // Reserves one sandbox slot for caller, and `name` (if not "") among its tenant's names:
  // QuotaExceeded (429) when its sandboxes (its entries for which `exists` holds: a sandbox
  // removed by the CLI or gc no longer counts) and those `elsewhere` holds, with the creations
  // in flight, already reach max_sandboxes; AlreadyExists (409) when the tenant has, or is
  // creating, a sandbox of that name (here or elsewhere). Counted under the registry's lock, so
  // that concurrent creations cannot each see room for one more. Every successful Reserve is
  // followed by Commit or Cancel with the same name.
  Status Reserve(const Caller& caller, const std::function<bool(const std::string&)>& exists,
                 const std::string& name = "", const Elsewhere& elsewhere = {});
  Status Commit(const Caller& caller, const std::string& id, const std::string& name = "");
  void Cancel(const Caller& caller, const std::string& name = "");
  // Forgets a removed sandbox (and its name).
  Status Forget(const std::string& id);
  // Drops entries whose sandbox no longer exists (`exists` says which do).
  template <typename Exists>
  void Prune(Exists exists);

  // Counts one running command of caller's tenant; QuotaExceeded over max_concurrent_execs.
  Status StartExec(const Caller& caller);
  void EndExec(const Caller& caller);

 private:
  Status SaveLocked() const;

  std::string path_;
  mutable std::mutex mutex_;
  Entries entries_;
  std::map<std::string, size_t> creating_;                  // tenant -> creations in flight
  std::map<std::string, std::set<std::string>> reserving_;  // tenant -> names being created
  std::map<std::string, size_t> execs_;                     // tenant -> commands running
};

template <typename Exists>
void TenantRegistry::Prune(Exists exists) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t before = entries_.owners.size() + entries_.names.size();
  std::erase_if(entries_.owners, [&](const auto& kv) { return !exists(kv.first); });
  std::erase_if(entries_.names, [&](const auto& kv) { return !entries_.owners.count(kv.first); });
  if (entries_.owners.size() + entries_.names.size() != before) (void)SaveLocked();
}

}  // namespace agentbox
