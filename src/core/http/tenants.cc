#include "core/http/tenants.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "core/http/http_status.h"
#include "sys/file_util.h"

namespace agentbox {

StatusOr<std::map<std::string, std::string>> TenantRegistry::ParseJson(std::string_view text) {
  auto parsed = ParseJsonWithLimits(text);
  nlohmann::json doc = parsed.ok() ? std::move(*parsed) : nlohmann::json();
  if (!doc.is_object() || !doc.contains("sandboxes") || !doc["sandboxes"].is_object()) {
    return InvalidArgument("tenants file: expected {\"sandboxes\": {ID: TENANT}}");
  }
  std::map<std::string, std::string> owners;
  for (const auto& [id, tenant] : doc["sandboxes"].items()) {
    if (!tenant.is_string()) return InvalidArgument("tenants file: tenant of " + id);
    owners[id] = tenant.get<std::string>();
  }
  return owners;
}

std::string TenantRegistry::ToJson(const std::map<std::string, std::string>& owners) {
  nlohmann::json doc = {{"sandboxes", nlohmann::json::object()}};
  for (const auto& [id, tenant] : owners) doc["sandboxes"][id] = tenant;
  return doc.dump(2) + "\n";
}

Status TenantRegistry::Load() {
  if (path_.empty() || !PathExists(path_)) return OkStatus();
  AB_ASSIGN_OR_RETURN(std::string text, ReadFile(path_));
  AB_ASSIGN_OR_RETURN(auto owners, ParseJson(text));
  std::lock_guard<std::mutex> lock(mutex_);
  owners_ = std::move(owners);
  return OkStatus();
}

Status TenantRegistry::SaveLocked() const {
  if (path_.empty()) return OkStatus();
  // Written beside and renamed over, so a crash leaves the old map or the new, never half.
  std::string tmp = path_ + ".tmp";
  AB_RETURN_IF_ERROR(WriteFile(tmp, ToJson(owners_), 0600));
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) return ErrnoStatus("rename " + tmp);
  return OkStatus();
}

bool TenantRegistry::Visible(const Caller& caller, const std::string& id) const {
  if (caller.anonymous()) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = owners_.find(id);
  return it != owners_.end() && it->second == caller.tenant;
}

Status TenantRegistry::Reserve(const Caller& caller,
                               const std::function<bool(const std::string&)>& exists) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t& pending = creating_[caller.tenant];
  size_t live = 0;
  if (caller.max_sandboxes != 0) {
    for (const auto& [id, tenant] : owners_) live += tenant == caller.tenant && exists(id);
  }
  if (caller.max_sandboxes != 0 && live + pending >= caller.max_sandboxes) {
    return QuotaExceeded("tenant " + caller.tenant + " may have " +
                         std::to_string(caller.max_sandboxes) + " sandboxes");
  }
  ++pending;
  return OkStatus();
}

Status TenantRegistry::Commit(const Caller& caller, const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  --creating_[caller.tenant];
  if (caller.anonymous()) return OkStatus();
  owners_[id] = caller.tenant;
  return SaveLocked();
}

void TenantRegistry::Cancel(const Caller& caller) {
  std::lock_guard<std::mutex> lock(mutex_);
  --creating_[caller.tenant];
}

Status TenantRegistry::Forget(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (owners_.erase(id) == 0) return OkStatus();
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
