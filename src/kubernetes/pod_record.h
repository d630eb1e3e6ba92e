// A kubernetes sandbox's record <-> its objects in the cluster, which are the record's truth
// (issue 20: serve keeps no state of its own on this backend). The pod carries what the record
// holds (its labels and annotations, object_names.h: id, name, created/expires, the policy),
// the Secret the token and create's env (credentials, never annotations), the pod's status
// its IP; any agentbox sharing the owner label rebuilds the record from them, whatever its
// state dir holds. Pure: JSON in, JSON or a record out.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "core/sandbox_record.h"
#include "kubernetes/manifest_inputs.h"
#include "spec/sandbox_spec.h"

namespace agentbox::kubernetes {

// The pod's annotations of the record: name (when set), created-at (when set), expires-at,
// spec ({"policy": the policy without env, "user": "UID:GID"}), warm (when true), and serve's
// tenant and the tenant's name for the sandbox (when it has a tenant).
nlohmann::json RecordAnnotations(const SandboxSpec& spec, const SandboxIdentity& identity);

// What the objects of `record` carry of it, as Create makes them.
SandboxIdentity IdentityOf(const SandboxRecord& record);

// create's env as the Secret's kSecretEnvKey value (a JSON object's text); "" for none.
std::string EnvSecretValue(const SandboxSpec& spec);

// "tcp:10.1.2.3:7070", "tcp:[fd00::5]:7070": where the agent of a pod with that IP listens.
std::string AgentAddress(const std::string& ip);

// The record rebuilt from the pod and its Secret, as the API server returns them: backend
// kubernetes, kube_pod and the namespace (spec.kube, the rest of it ""), the agent's address
// while the pod has an IP ("" otherwise: a dead sandbox), the token, a temporary workspace
// with no host path, the tenant and its name for it; state_dir is the caller's. kFailedPrecondition
// for a warm pool's pod (no one's until claimed); kInvalidArgument naming the pod when it lacks the
// annotations (made by an agentbox before them) or one is corrupt, or the Secret holds no token.
StatusOr<SandboxRecord> RecordFromObjects(const nlohmann::json& pod, const nlohmann::json& secret);

// Whether a sandbox's pod is one to keep at unix time `now`: not being deleted, not ended
// (phase Succeeded or Failed), not past its expires-at annotation.
bool PodIsLive(const nlohmann::json& pod, int64_t now);

}  // namespace agentbox::kubernetes
