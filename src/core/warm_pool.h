// Warm pools: started sandboxes waiting for a `create` with the same shape, so create does not
// pay a container's start-up (docker backend; native sandboxes start in milliseconds anyway).
//
//   <root>/pool/<key>/config.json   {"size": N, "policy": {...}}: how many to keep warm
//   <root>/pool/<key>/<id>          one marker per warm sandbox; claimed by unlinking it
//
// A warm sandbox is an ordinary sandbox record with pool_key set. A create whose spec has the
// same key (and no --workspace: a pooled box has its private one) claims one atomically, takes
// on the requested name, env and exec defaults, and a detached `agentbox pool fill --key KEY`
// tops the pool up again.
#pragma once

#include <string>

#include "spec/sandbox_spec.h"

namespace agentbox {

// What makes two sandboxes interchangeable before their first exec: backend, image, runtime and
// the box-wide limits. Env, cwd and the per-exec limits are not part of it.
std::string PoolKey(const SandboxSpec& spec);

// True when `spec` may be served from a pool at all.
bool Poolable(const SandboxSpec& spec);

}  // namespace agentbox
