// SandboxManager's warm pools: claim, fill, refill in the background, drain. See core/warm_pool.h.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/sandbox_activity.h"
#include "core/sandbox_manager.h"
#include "core/warm_pool.h"
#include "spec/spec_json.h"
#include "sys/file_util.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

constexpr const char* kPoolConfig = "config.json";
constexpr const char* kPoolLock = "lock";

bool IsMarker(const std::string& name) { return name != kPoolConfig && name != kPoolLock; }

std::vector<std::string> Markers(const std::string& dir) {
  auto names = ListDir(dir);
  std::vector<std::string> ids;
  if (!names.ok()) return ids;
  for (const std::string& n : *names) {
    if (IsMarker(n)) ids.push_back(n);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

struct PoolConfig {
  size_t size = 0;
  SandboxSpec spec;
};

// The kubernetes target is no policy key (SpecToPolicyJson leaves it out): the pool keeps it.
nlohmann::json KubeTargetJson(const KubernetesTarget& kube) {
  return {{"kubeconfig", kube.kubeconfig},
          {"context", kube.context},
          {"namespace", kube.namespace_name}};
}

StatusOr<PoolConfig> ReadConfig(const std::string& dir) {
  AB_ASSIGN_OR_RETURN(std::string text, ReadFile(dir + "/" + kPoolConfig));
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("size") || !j.contains("policy")) {
    return Internal("corrupt pool config in " + dir);
  }
  PoolConfig config;
  config.size = j.value("size", size_t{0});
  AB_ASSIGN_OR_RETURN(config.spec, SpecFromPolicyJson(j["policy"]));
  if (j.contains("kubernetes") && j["kubernetes"].is_object()) {
    const nlohmann::json& k = j["kubernetes"];
    config.spec.kube = {k.value("kubeconfig", ""), k.value("context", ""),
                        k.value("namespace", "")};
  }
  return config;
}

Status WriteConfig(const std::string& dir, size_t size, const SandboxSpec& spec) {
  nlohmann::json j = {{"size", size}, {"policy", SpecToPolicyJson(spec)}};
  if (spec.backend == BackendKind::kKubernetes) j["kubernetes"] = KubeTargetJson(spec.kube);
  std::string tmp = dir + "/" + kPoolConfig + ".tmp";
  AB_RETURN_IF_ERROR(WriteFile(tmp, j.dump(2) + "\n", 0600));
  if (::rename(tmp.c_str(), (dir + "/" + kPoolConfig).c_str()) != 0) {
    return ErrnoStatus("save the pool config in " + dir);
  }
  return OkStatus();
}

// The pool's lock, held: one filler or drainer of a pool at a time.
StatusOr<UniqueFd> LockPool(const std::string& dir) {
  AB_ASSIGN_OR_RETURN(UniqueFd lock, OpenFile(dir + "/" + kPoolLock, O_RDWR | O_CREAT, 0600));
  if (::flock(lock.get(), LOCK_EX) != 0) return ErrnoStatus("lock the pool " + dir);
  return lock;
}

}  // namespace

std::string SandboxManager::PoolDir(const std::string& key) const {
  return store_.root() + "/pool/" + key;
}

StatusOr<std::string> SandboxManager::PoolKeyOf(const SandboxSpec& spec) {
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(spec.backend));
  AB_ASSIGN_OR_RETURN(std::string scope, backend->PoolScope(spec));
  return PoolKey(spec, scope);
}

std::optional<SandboxRecord> SandboxManager::ClaimWarm(const SandboxSpec& spec,
                                                       const std::string& name, Status* error) {
  // A warm sandbox has no egress proxy: one with allow_hosts is made fresh.
  if (!spec.allow_hosts.empty()) return std::nullopt;
  auto pool_key = PoolKeyOf(spec);
  if (!pool_key.ok()) return std::nullopt;  // the cold create says what is wrong
  const std::string& key = *pool_key;
  std::string dir = PoolDir(key);
  if (!PathExists(dir)) return std::nullopt;
  std::optional<SandboxRecord> claimed;
  for (const std::string& id : Markers(dir)) {
    if (::unlink((dir + "/" + id).c_str()) != 0) continue;  // another create won this one
    auto record = store_.Load(id);
    if (!record.ok()) continue;
    auto backend = BackendFor(record->backend);
    if (!backend.ok() || !(*backend)->IsAlive(*record)) {
      (void)Destroy(*record);
      continue;
    }
    // An asked-for pids limit is a promise a warm box made for the pool may not keep (a pod's
    // runtime may hold none): such a create takes it only when it does, else is made cold and
    // refused there.
    if (spec.pids_limit_explicit && PidsLimitOf(*record).enforced != true) {
      (void)WriteFile(dir + "/" + id, "", 0600);  // back into the pool
      return std::nullopt;
    }
    if (!name.empty()) {
      if (Status st = store_.ReserveName(name, id); !st.ok()) {
        (void)WriteFile(dir + "/" + id, "", 0600);  // back into the pool
        *error = st;
        return std::nullopt;
      }
    }
    record->name = name;
    record->created_at = NowRfc3339();
    record->expires_at = ExpiryOf(spec, std::time(nullptr));
    // What the backend filled in at its create stays: the image's user, where the pod is.
    SandboxSpec claimed_spec = spec;
    claimed_spec.user = record->spec.user;
    claimed_spec.kube = record->spec.kube;
    record->spec = std::move(claimed_spec);
    record->pool_key.clear();
    if (Status st = store_.Save(*record); !st.ok()) {
      (void)Destroy(*record);
      *error = st;
      return std::nullopt;
    }
    claimed = std::move(record).value();
    MarkActive(*claimed);
    break;
  }
  auto config = ReadConfig(dir);
  if (config.ok() && config->size > 0 && refill_) refill_(key);
  return claimed;
}

StatusOr<size_t> SandboxManager::FillPool(const SandboxSpec& spec, size_t size,
                                          const std::string& expected_key) {
  if (!Poolable(spec)) {
    return InvalidArgument(
        "warm pools serve the docker and kubernetes backends without --workspace or --rootfs");
  }
  AB_ASSIGN_OR_RETURN(std::string key, PoolKeyOf(spec));
  if (!expected_key.empty() && key != expected_key) {
    return FailedPrecondition("pool " + expected_key +
                              " was filled for another cluster or namespace than this "
                              "environment's (its key here is " +
                              key + ")");
  }
  std::string dir = PoolDir(key);
  AB_RETURN_IF_ERROR(MakeDirs(dir, 0700));
  AB_ASSIGN_OR_RETURN(UniqueFd lock, LockPool(dir));
  if (expected_key.empty()) {
    AB_RETURN_IF_ERROR(WriteConfig(dir, size, spec));
  } else {
    // A refill tops up to the size recorded now: a drain since its start set it to 0.
    AB_ASSIGN_OR_RETURN(PoolConfig config, ReadConfig(dir));
    size = config.size;
  }
  // A stored policy reads every key as asked for: whether a member holds an asked-for pids
  // limit is checked at its claim instead (ClaimWarm), for the create that asks.
  SandboxSpec member = spec;
  member.pids_limit_explicit = false;
  size_t started = 0;
  while (Markers(dir).size() < size) {
    AB_ASSIGN_OR_RETURN(SandboxRecord record, CreateRecord(member, "", key));
    AB_RETURN_IF_ERROR(WriteFile(dir + "/" + record.id, "", 0600));
    ++started;
  }
  return started;
}

StatusOr<size_t> SandboxManager::RefillPool(const std::string& key) {
  if (key.empty() || key.find('/') != std::string::npos || key[0] == '.') {
    return InvalidArgument("invalid pool key \"" + key + "\"");
  }
  AB_ASSIGN_OR_RETURN(PoolConfig config, ReadConfig(PoolDir(key)));
  return FillPool(config.spec, config.size, key);
}

size_t SandboxManager::DrainPools() {
  size_t removed = 0;
  auto keys = ListDir(store_.root() + "/pool");
  for (const std::string& key : keys.ok() ? *keys : std::vector<std::string>{}) {
    std::string dir = PoolDir(key);
    // After a fill or refill in progress, whose sandboxes would otherwise outlive the drain.
    auto lock = LockPool(dir);
    if (auto config = ReadConfig(dir); config.ok()) (void)WriteConfig(dir, 0, config->spec);
    for (const std::string& id : Markers(dir)) {
      if (::unlink((dir + "/" + id).c_str()) != 0) continue;
      auto record = store_.Load(id);
      if (record.ok() && Destroy(*record).ok()) ++removed;
    }
  }
  return removed;
}

std::vector<PoolStatus> SandboxManager::ListPools() {
  std::vector<PoolStatus> pools;
  auto keys = ListDir(store_.root() + "/pool");
  for (const std::string& key : keys.ok() ? *keys : std::vector<std::string>{}) {
    auto config = ReadConfig(PoolDir(key));
    if (!config.ok()) continue;
    pools.push_back({key, config->size, Markers(PoolDir(key)).size(), config->spec.backend,
                     config->spec.image});
  }
  std::sort(pools.begin(), pools.end(),
            [](const PoolStatus& a, const PoolStatus& b) { return a.key < b.key; });
  return pools;
}

}  // namespace agentbox
