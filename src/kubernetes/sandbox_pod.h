// The cluster side of one sandbox: its three objects (Secret, NetworkPolicy, Pod) made, the
// pod awaited until it runs with an IP, and everything removed again; and `gc`'s sweep of what
// one agentbox made. Over ApiClient, in its namespace.
#pragma once

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/sandbox_record.h"
#include "kubernetes/api_client.h"
#include "kubernetes/manifest_inputs.h"
#include "spec/sandbox_spec.h"

namespace agentbox::kubernetes {

// Creates the Secret holding `token`, the NetworkPolicy, then the pod (so it never runs
// unpoliced or without its token); the policy and pod are owned by the Secret (SecretOwner:
// deleting it deletes them). On failure the caller deletes what was made.
Status CreateSandboxObjects(ApiClient& client, const SandboxSpec& spec, const ManifestInputs& in,
                            const std::string& token);

// Watches the sandbox's pod until it runs with an IP, which it returns. kUnavailable naming the
// pod and its state (phase, Unschedulable, ImagePullBackOff, a container's exit, ...) when it
// will not start, is deleted, or has not started by `deadline`.
StatusOr<std::string> AwaitPodIp(ApiClient& client, const std::string& id,
                                 std::chrono::steady_clock::time_point deadline);

// The pod's state as one phrase ("phase Pending: ..."), for errors after it ran; "" unknown.
std::string DescribePod(ApiClient& client, const std::string& id);

// Deletes the pod, the Secret and the NetworkPolicy of sandbox `id`; fine when already gone.
Status DeleteSandboxObjects(ApiClient& client, const std::string& id);

// Every sandbox of `owner` in the client's namespace, its record rebuilt from its pod and Secret
// (kubernetes/pod_record.h); warm pods, pods being deleted and pods without a record are left
// out.
StatusOr<std::vector<SandboxRecord>> ListSandboxRecords(ApiClient& client,
                                                        const std::string& owner);

// Deletes every object labelled with `owner` whose sandbox is not live: neither is_live nor a
// pod the cluster still runs (another agentbox sharing the owner may have made it) unless past
// its expires-at; a Secret or NetworkPolicy younger than a few minutes is left alone (its pod
// may be on its way). One line per object.
// live_sessions: MCP session keys live sandboxes carry beyond the pods' (SandboxClaims',
// claim_sandbox.h CollectClaims), whose Secrets stay.
std::vector<std::string> CollectSandboxObjects(
    ApiClient& client, const std::string& owner,
    const std::function<bool(const std::string& id)>& is_live,
    const std::set<std::string>& live_sessions = {});

}  // namespace agentbox::kubernetes
