#include "core/warm_pool.h"

#include <cinttypes>
#include <cstdio>

namespace agentbox {

std::string PoolKey(const SandboxSpec& spec) {
  char canon[512];
  std::snprintf(canon, sizeof(canon),
                "%s|%s|%s|%" PRIu64 "|%" PRIu64 "|%.6f|%" PRIu64 "|%" PRIu64 "|%" PRIu64,
                BackendName(spec.backend), spec.image.c_str(), spec.runtime.c_str(),
                spec.limits.memory_bytes, spec.limits.pids, spec.limits.cpus, spec.tmp_bytes,
                spec.shm_bytes, spec.open_files);
  uint64_t h = 14695981039346656037ull;  // FNV-1a: stable across builds and machines
  for (const char* p = canon; *p; ++p) {
    h ^= static_cast<unsigned char>(*p);
    h *= 1099511628211ull;
  }
  char key[17];
  std::snprintf(key, sizeof(key), "%016" PRIx64, h);
  return key;
}

bool Poolable(const SandboxSpec& spec) {
  return spec.backend == BackendKind::kDocker && !spec.workspace && !spec.rootfs;
}

}  // namespace agentbox
