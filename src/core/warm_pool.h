// Warm pools: started sandboxes waiting for a `create` with the same shape, so create does not
// pay a container's or a pod's start-up (docker and kubernetes backends; native sandboxes start
// in milliseconds anyway).
//
//   <root>/pool/<key>/config.json   {"size": N, "policy": {...}, "kubernetes": {...}}: how many
//                                   to keep warm, of which shape, where
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

// What makes two sandboxes interchangeable before their first exec: backend, image, runtime,
// the box-wide limits (memory, pids, cpus, disk, /tmp, /dev/shm, open files), the random seed
// the agent starts with, the kubernetes target as given, and `scope`: where the backend makes
// them as this host resolves it now (Backend::PoolScope; a kubeconfig's server and namespace).
// Env, cwd and the per-exec limits are not part of it.
std::string PoolKey(const SandboxSpec& spec, const std::string& scope);

// True when `spec` may be served from a pool at all: docker and kubernetes without --workspace
// or --rootfs; on kubernetes not with a ttl (the pod's activeDeadlineSeconds counts from the
// pod's own start, so a pod started earlier for the pool would end early).
bool Poolable(const SandboxSpec& spec);

}  // namespace agentbox
