// PodManifest(): the one pod of a sandbox, strict by construction (issue 20 point 2;
// docs/kubernetes.md lists each field and what it defends against).
//
// Pure: SandboxSpec + ManifestInputs -> the Pod object as JSON, for POST .../pods. Every
// property is asserted field by field in tests/unit/kubernetes/pod_manifest_test.cc and the
// whole object byte for byte against tests/golden/kubernetes/. What a pod spec cannot express
// (RLIMIT_NOFILE: the agent's --open-files in its args; a pids limit per pod: reported not
// enforced, core/pids_limit.h) is not silently dropped here.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "kubernetes/manifest_inputs.h"
#include "spec/sandbox_spec.h"

namespace agentbox::kubernetes {

// The pod: non-root (the spec's user, 1000 by default) with no privilege escalation, no
// capabilities, a read-only root, agentbox's seccomp profile or the runtime's default (field
// and annotation), no service account token, no host namespace or path; requests = limits
// (memory, cpu); /workspace, /tmp and /dev/shm emptyDirs with size limits (the last two in
// memory); activeDeadlineSeconds from the TTL; the agent as PID 1. kInvalidArgument for an id
// that cannot name an object or inputs without an agent image.
StatusOr<nlohmann::json> PodManifest(const SandboxSpec& spec, const ManifestInputs& in);

}  // namespace agentbox::kubernetes
