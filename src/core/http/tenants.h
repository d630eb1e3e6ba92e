// Which tenant owns which sandbox, and how many commands each tenant runs right now.
//
// The server records the tenant of every sandbox it creates in <state dir>/tenants.json
// ({"sandboxes": {"<id>": "<tenant>"}}), written atomically after each change, so ownership
// survives a restart. The sandbox of an MCP session over HTTP is its tenant's too (counted,
// listed), from its creation to the session's end. A sandbox not in the map (made by the CLI,
// or by `agentbox mcp` over stdio) belongs to no tenant: only the anonymous caller (no tokens
// file) sees it.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "base/status.h"
#include "core/http/auth.h"

namespace agentbox {

class TenantRegistry {
 public:
  // `path` "" keeps the map in memory only (tests).
  explicit TenantRegistry(std::string path) : path_(std::move(path)) {}

  // Reads the file; a missing file is an empty map.
  Status Load();
  // The tenant map as JSON and back (pure; the file format above).
  static StatusOr<std::map<std::string, std::string>> ParseJson(std::string_view text);
  static std::string ToJson(const std::map<std::string, std::string>& owners);

  // True when the caller may see sandbox `id`.
  bool Visible(const Caller& caller, const std::string& id) const;

  // Reserves one sandbox slot for caller: QuotaExceeded (429) when its sandboxes (its entries
  // for which `exists` holds: a sandbox removed by the CLI or gc no longer counts), with the
  // creations in flight, already reach max_sandboxes. Counted under the registry's lock, so
  // that concurrent creations cannot each see room for one more. Every successful Reserve is
  // followed by Commit or Cancel.
  Status Reserve(const Caller& caller, const std::function<bool(const std::string&)>& exists);
  Status Commit(const Caller& caller, const std::string& id);
  void Cancel(const Caller& caller);
  // Forgets a removed sandbox.
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
  std::map<std::string, std::string> owners_;  // sandbox id -> tenant
  std::map<std::string, size_t> creating_;     // tenant -> creations in flight
  std::map<std::string, size_t> execs_;        // tenant -> commands running
};

template <typename Exists>
void TenantRegistry::Prune(Exists exists) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t before = owners_.size();
  std::erase_if(owners_, [&](const auto& kv) { return !exists(kv.first); });
  if (owners_.size() != before) (void)SaveLocked();
}

}  // namespace agentbox
