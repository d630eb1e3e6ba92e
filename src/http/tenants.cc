#include "http/tenants.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "http/http_status.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

constexpr std::string_view kFormat =
    "tenants file: expected {\"sandboxes\": {ID: TENANT}, \"names\": {ID: NAME}}";

Status ReadStringMap(const nlohmann::json& doc, const char* key,
                     std::map<std::string, std::string>* out) {
  if (!doc.contains(key)) return OkStatus();
  if (!doc[key].is_object()) return InvalidArgument(std::string(kFormat));
  for (const auto& [id, value] : doc[key].items()) {
    if (!value.is_string()) return InvalidArgument(std::string(kFormat) + ": " + key + "." + id);
    (*out)[id] = value.get<std::string>();
  }
  return OkStatus();
}

}  // namespace

StatusOr<TenantRegistry::Entries> TenantRegistry::ParseJson(std::string_view text) {
  auto parsed = ParseJsonWithLimits(text);
  nlohmann::json doc = parsed.ok() ? std::move(*parsed) : nlohmann::json();
  if (!doc.is_object() || !doc.contains("sandboxes")) return InvalidArgument(std::string(kFormat));
  Entries entries;
  AB_RETURN_IF_ERROR(ReadStringMap(doc, "sandboxes", &entries.owners));
  AB_RETURN_IF_ERROR(ReadStringMap(doc, "names", &entries.names));
  return entries;
}

std::string TenantRegistry::ToJson(const Entries& entries) {
  nlohmann::json doc = {{"sandboxes", nlohmann::json::object()},
                        {"names", nlohmann::json::object()}};
  for (const auto& [id, tenant] : entries.owners) doc["sandboxes"][id] = tenant;
  for (const auto& [id, name] : entries.names) doc["names"][id] = name;
  return doc.dump(2) + "\n";
}

Status TenantRegistry::Load() {
  if (path_.empty() || !PathExists(path_)) return OkStatus();
  AB_ASSIGN_OR_RETURN(std::string text, ReadFile(path_));
  AB_ASSIGN_OR_RETURN(Entries entries, ParseJson(text));
  std::lock_guard<std::mutex> lock(mutex_);
  entries_ = std::move(entries);
  return OkStatus();
}

Status TenantRegistry::SaveLocked() const {
  if (path_.empty()) return OkStatus();
  // Written beside and renamed over, so a crash leaves the old map or the new, never half.
  std::string tmp = path_ + ".tmp";
  AB_RETURN_IF_ERROR(WriteFile(tmp, ToJson(entries_), 0600));
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) return ErrnoStatus("rename " + tmp);
  return OkStatus();
}

bool TenantRegistry::Visible(const Caller& caller, const std::string& id) const {
  if (caller.anonymous()) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.owners.find(id);
  return it != entries_.owners.end() && it->second == caller.tenant;
}

std::optional<std::string> TenantRegistry::Named(const Caller& caller,
                                                 const std::string& name) const {
  if (caller.anonymous() || name.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [id, given] : entries_.names) {
    auto owner = entries_.owners.find(id);
    if (given == name && owner != entries_.owners.end() && owner->second == caller.tenant) {
      return id;
    }
  }
  return std::nullopt;
}

std::string TenantRegistry::NameOf(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.names.find(id);
  return it == entries_.names.end() ? std::string() : it->second;
}

std::string TenantRegistry::OwnerOf(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.owners.find(id);
  return it == entries_.owners.end() ? std::string() : it->second;
}

bool TenantRegistry::Owns(const Caller& caller, const SandboxRecord& record) const {
  if (caller.anonymous()) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.owners.find(record.id);
  if (it != entries_.owners.end()) return it->second == caller.tenant;
  return !record.tenant.empty() && record.tenant == caller.tenant;
}

std::string TenantRegistry::NameFor(const SandboxRecord& record) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.owners.count(record.id) == 0) return record.tenant_name;
  auto it = entries_.names.find(record.id);
  return it == entries_.names.end() ? std::string() : it->second;
}

void TenantRegistry::Learn(const SandboxRecord& record) {
  if (record.tenant.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.owners.count(record.id) > 0) return;
  entries_.owners[record.id] = record.tenant;
  if (!record.tenant_name.empty()) entries_.names[record.id] = record.tenant_name;
  (void)SaveLocked();  // a map not saved is learnt again from the record
}

Status TenantRegistry::Reserve(const Caller& caller,
                               const std::function<bool(const std::string&)>& exists,
                               const std::string& name, const Elsewhere& elsewhere) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!name.empty() && !caller.anonymous()) {
    bool taken = reserving_[caller.tenant].count(name) > 0 || elsewhere.names.count(name) > 0;
    for (const auto& [id, given] : entries_.names) {
      auto owner = entries_.owners.find(id);
      taken = taken || (given == name && owner != entries_.owners.end() &&
                        owner->second == caller.tenant && exists(id));
    }
    if (taken) return AlreadyExists("a sandbox named \"" + name + "\" exists");
  }
  size_t& pending = creating_[caller.tenant];
  size_t live = elsewhere.ids.size();
  if (caller.max_sandboxes != 0) {
    for (const auto& [id, tenant] : entries_.owners) {
      live += tenant == caller.tenant && !elsewhere.ids.count(id) && exists(id);
    }
  }
  if (caller.max_sandboxes != 0 && live + pending >= caller.max_sandboxes) {
    return QuotaExceeded("tenant " + caller.tenant + " may have " +
                         std::to_string(caller.max_sandboxes) + " sandboxes");
  }
  ++pending;
  if (!name.empty() && !caller.anonymous()) reserving_[caller.tenant].insert(name);
  return OkStatus();
}

Status TenantRegistry::Commit(const Caller& caller, const std::string& id,
                              const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  --creating_[caller.tenant];
  if (caller.anonymous()) return OkStatus();
  reserving_[caller.tenant].erase(name);
  entries_.owners[id] = caller.tenant;
  // A name left by a sandbox removed behind our back (CLI, gc) is the tenant's to reuse.
  std::erase_if(entries_.names, [&](const auto& kv) {
    auto owner = entries_.owners.find(kv.first);
    return kv.second == name && owner != entries_.owners.end() && owner->second == caller.tenant;
  });
  if (!name.empty()) entries_.names[id] = name;
  return SaveLocked();
}

void TenantRegistry::Cancel(const Caller& caller, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  --creating_[caller.tenant];
  if (!caller.anonymous()) reserving_[caller.tenant].erase(name);
}

Status TenantRegistry::Forget(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t erased = entries_.owners.erase(id) + entries_.names.erase(id);
  if (erased == 0) return OkStatus();
  return SaveLocked();
}

Status TenantRegistry::StartExec(const Caller& caller) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t& running = execs_[caller.tenant];
  if (caller.max_concurrent_execs != 0 && running >= caller.max_concurrent_execs) {
    return QuotaExceeded("tenant " + caller.tenant + " may run " +
                         std::to_string(caller.max_concurrent_execs) + " commands at once");
  }
  ++running;
  return OkStatus();
}

void TenantRegistry::EndExec(const Caller& caller) {
  std::lock_guard<std::mutex> lock(mutex_);
  --execs_[caller.tenant];
}

}  // namespace agentbox
