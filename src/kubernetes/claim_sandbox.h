// The cluster side of a sandbox made through a SandboxClaim (kubernetes/claim_manifests.h):
// the CRDs checked, the template, its policy, the token Secret and the claim made, the claim
// awaited until agent-sandbox's controller binds it to a running pod, the pod's agent claimed
// with the sandbox's token, and all of it removed again; and `gc`'s and adoption's view of the
// claims one agentbox made. Over ApiClient, in its namespace.
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

// OK when the cluster serves agent-sandbox's v1alpha1 SandboxClaim and SandboxTemplate;
// kFailedPrecondition naming what is missing otherwise (never a fallback to plain pods).
Status CheckClaimsServed(ApiClient& client);

// The Secret (token, env), the template (AlreadyExists is fine: it is the shape's), the
// template's NetworkPolicy (likewise), then the claim, owned by the Secret (SecretOwner). Returns
// the template's name. On failure the caller deletes the sandbox's objects (DeleteClaimObjects).
StatusOr<std::string> CreateClaimObjects(ApiClient& client, const SandboxSpec& spec,
                                         const ManifestInputs& in, const std::string& token);

// A bound claim: its pod (found by the controller's claim-uid label; else status.sandbox.name)
// and the IP to reach its agent at.
struct BoundClaim {
  std::string pod;
  std::string ip;
};
// Watches the sandbox's claim until it is Ready with a pod IP. kUnavailable naming the claim
// and what its status says when it is deleted or not bound by `deadline`.
StatusOr<BoundClaim> AwaitClaimBound(ApiClient& client, const std::string& id,
                                     std::chrono::steady_clock::time_point deadline);

// The claim hello (HelloTarget::kClaim) to the agent at `agent_address` ("tcp:IP:PORT"),
// retried until `deadline` while the agent does not answer yet; its refusal (claimed already)
// at once.
Status ClaimAgent(const std::string& agent_address, const std::string& token,
                  std::chrono::steady_clock::time_point deadline);

// Deletes the claim (the controller deletes its pod) and the Secret; fine when already gone.
Status DeleteClaimObjects(ApiClient& client, const std::string& id);

// Whether the sandbox's claim is gone or being deleted.
StatusOr<bool> ClaimGone(ApiClient& client, const std::string& id);

// Every claim sandbox of `owner`, its record rebuilt from the claim's annotations, its Secret and
// its status (the pod's IP, none while it is not bound); claims being deleted are left out.
StatusOr<std::vector<SandboxRecord>> ListClaimRecords(ApiClient& client, const std::string& owner);

// Deletes the claims of `owner` whose sandbox is not is_live and that are being deleted, past
// their expires-at, or not bound and older than a few minutes. Returns one line per claim
// removed, and fills *kept with the ids of claims that stay (their Secrets are not garbage) and
// *kept_sessions with the MCP session keys they carry (nor are those sessions' Secrets).
std::vector<std::string> CollectClaims(ApiClient& client, const std::string& owner,
                                       const std::function<bool(const std::string& id)>& is_live,
                                       std::set<std::string>* kept,
                                       std::set<std::string>* kept_sessions);

}  // namespace agentbox::kubernetes
