#include "core/warm_pool.h"

#include <cinttypes>
#include <cstdio>

namespace agentbox {

std::string PoolKey(const SandboxSpec& spec, const std::string& scope) {
  char limits[256];
  std::snprintf(limits, sizeof(limits),
                "%" PRIu64 "|%" PRIu64 "|%.6f|%" PRIu64 "|%" PRIu64 "|%" PRIu64 "|%" PRIu64,
                spec.limits.memory_bytes, spec.limits.pids, spec.limits.cpus,
                spec.limits.disk_bytes, spec.tmp_bytes, spec.shm_bytes, spec.open_files);
  const std::string seed = spec.random_seed ? std::to_string(*spec.random_seed) : "-";
  const std::string canon = std::string(BackendName(spec.backend)) + "|" + spec.image + "|" +
                            spec.runtime + "|" + limits + "|" + seed + "|" + spec.kube.kubeconfig +
                            "|" + spec.kube.context + "|" + spec.kube.namespace_name + "|" + scope;
  uint64_t h = 14695981039346656037ull;  // FNV-1a: stable across builds and machines
  for (const char c : canon) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  char key[17];
  std::snprintf(key, sizeof(key), "%016" PRIx64, h);
  return key;
}

bool Poolable(const SandboxSpec& spec) {
  if (spec.workspace || spec.rootfs) return false;
  if (spec.backend == BackendKind::kKubernetes) return spec.ttl_seconds == 0;
  return spec.backend == BackendKind::kDocker;
}

}  // namespace agentbox
