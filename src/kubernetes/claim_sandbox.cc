#include "kubernetes/claim_sandbox.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <thread>

#include "kubernetes/claim_manifests.h"
#include "kubernetes/exec_credential.h"
#include "kubernetes/object_names.h"
#include "kubernetes/pod_record.h"
#include "kubernetes/sandbox_objects.h"
#include "kubernetes/watch.h"
#include "proto/agent_dial.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

// A claim not bound this long after it was made is garbage to `gc` (its create gave up).
constexpr int64_t kBindGraceSeconds = 300;

json Meta(const json& object) { return object.value("metadata", json::object()); }

std::string SandboxIdOf(const json& object) {
  return Meta(object).value("labels", json::object()).value(kLabelSandbox, "");
}

std::string Where(ApiClient& client, const std::string& id) {
  return "SandboxClaim " + client.namespace_name() + "/" + PodName(id);
}

Status CreateShared(ApiClient& client, const ResourceKind& kind, const json& object) {
  Status st = client.Create(kind, object).status();
  return st.code() == StatusCode::kAlreadyExists ? OkStatus() : st;
}

// The claim as a pod would carry the record (pod_record.h): its metadata, and the bound pod's
// IP as status.podIP.
json ClaimAsPod(const json& claim) {
  ClaimBinding bound = ReadClaimBinding(claim);
  json pod = {{"metadata", Meta(claim)}, {"status", json::object()}};
  if (bound.ready && !bound.pod_ips.empty()) pod["status"]["podIP"] = bound.pod_ips.front();
  return pod;
}

}  // namespace

Status CheckClaimsServed(ApiClient& client) {
  auto list = client.GetPath(kAgentSandboxDiscoveryPath);
  std::string missing = "sandboxclaims and sandboxtemplates";
  if (list.ok()) {
    missing = MissingClaimResources(*list);
    if (missing.empty()) return OkStatus();
  } else if (list.status().code() != StatusCode::kNotFound) {
    return list.status();
  }
  return FailedPrecondition(
      "AGENTBOX_KUBE_SANDBOX_CLAIMS asks for agent-sandbox's SandboxClaim, but the cluster does "
      "not serve " +
      missing + " of " + kAgentSandboxGroupVersion +
      " (install agent-sandbox's extensions CRDs and controller, or unset "
      "AGENTBOX_KUBE_SANDBOX_CLAIMS)");
}

StatusOr<std::string> CreateClaimObjects(ApiClient& client, const SandboxSpec& spec,
                                         const ManifestInputs& in, const std::string& token) {
  AB_ASSIGN_OR_RETURN(json secret, AgentTokenSecret(in, token, EnvSecretValue(spec)));
  AB_ASSIGN_OR_RETURN(json tmpl, SandboxTemplateManifest(spec, in));
  const std::string name = tmpl["metadata"]["name"];
  AB_RETURN_IF_ERROR(SandboxClaimManifest(spec, in, name).status());  // refused: nothing made
  AB_ASSIGN_OR_RETURN(json made, client.Create(kSecrets, secret));
  // The claim is the Secret's dependent (the cluster's garbage collector removes it, and so its
  // pod, when the Secret goes); the template and its policy are shared, no one sandbox's.
  ManifestInputs owned = in;
  AB_ASSIGN_OR_RETURN(OwnerReference root, SecretOwner(made));
  owned.owners.push_back(std::move(root));
  AB_ASSIGN_OR_RETURN(json claim, SandboxClaimManifest(spec, owned, name));
  // The policy before the template: no pod of the template runs unpoliced.
  AB_RETURN_IF_ERROR(CreateShared(client, kNetworkPolicies, TemplateNetworkPolicy(in, name)));
  AB_RETURN_IF_ERROR(CreateShared(client, kSandboxTemplates, tmpl));
  AB_RETURN_IF_ERROR(client.Create(kSandboxClaims, claim).status());
  return name;
}

StatusOr<BoundClaim> AwaitClaimBound(ApiClient& client, const std::string& id,
                                     std::chrono::steady_clock::time_point deadline) {
  const std::string claim_name = PodName(id);
  json last;
  bool deleted = false;
  auto bound = [&](const json& claim) {
    if (Meta(claim).value("name", "") != claim_name) return false;
    last = claim;
    ClaimBinding b = ReadClaimBinding(claim);
    return b.ready && !b.pod_ips.empty();
  };
  WatchHandlers handlers;
  handlers.on_list = [&](const json& list) {
    for (const json& item : list.value("items", json::array())) {
      if (bound(item)) return false;
    }
    return true;
  };
  handlers.on_event = [&](const WatchEvent& event) {
    if (event.type == "DELETED" && Meta(event.object).value("name", "") == claim_name) {
      deleted = true;
      return false;
    }
    return !bound(event.object);
  };
  WatchOptions options;
  options.timeout_seconds = 60;
  options.max_failures = 3;
  options.deadline = deadline;
  Status watched = Watch(client, kSandboxClaims, SandboxSelector(id), handlers, options);
  if (deleted) return Unavailable(Where(client, id) + " was deleted while it was being bound");
  ClaimBinding b = ReadClaimBinding(last);
  if (b.ready && !b.pod_ips.empty()) {
    BoundClaim out{b.sandbox_name, b.pod_ips.front()};
    const std::string uid = Meta(last).value("uid", "");
    auto pods = client.List(kPods, std::string(kLabelClaimUid) + "=" + uid);
    if (!uid.empty() && pods.ok() && !(*pods)["items"].empty()) {
      out.pod = Meta((*pods)["items"][0]).value("name", out.pod);
    }
    return out;
  }
  if (watched.ok() || watched.message() == "the watch reached its deadline") {
    return Unavailable(Where(client, id) + " was not bound to a running pod in time (" +
                       (last.is_null() ? "no status" : b.detail) + ")");
  }
  return watched;
}

Status ClaimAgent(const std::string& agent_address, const std::string& token,
                  std::chrono::steady_clock::time_point deadline) {
  auto delay = std::chrono::milliseconds(2);
  for (;;) {
    auto conn = DialAgentTcp(agent_address, token, HelloTarget::kClaim);
    if (conn.ok()) return OkStatus();
    // Refused (claimed already, a bad token): final. Not answering yet: the agent may still be
    // starting in a pod the controller reported early.
    if (conn.status().code() != StatusCode::kUnavailable ||
        std::chrono::steady_clock::now() >= deadline) {
      return Status(conn.status().code(),
                    "the claim of the agent at " + agent_address + ": " + conn.status().message());
    }
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(200));
  }
}

Status DeleteClaimObjects(ApiClient& client, const std::string& id) {
  Status first;
  for (Status st :
       {client.Delete(kSandboxClaims, PodName(id)), client.Delete(kSecrets, SecretName(id))}) {
    if (!st.ok() && st.code() != StatusCode::kNotFound && first.ok()) first = st;
  }
  return first;
}

StatusOr<bool> ClaimGone(ApiClient& client, const std::string& id) {
  auto claim = client.Get(kSandboxClaims, PodName(id));
  if (!claim.ok()) {
    if (claim.status().code() == StatusCode::kNotFound) return true;
    return claim.status();
  }
  return Meta(*claim).contains("deletionTimestamp");
}

StatusOr<std::vector<SandboxRecord>> ListClaimRecords(ApiClient& client, const std::string& owner) {
  AB_ASSIGN_OR_RETURN(json claims, client.List(kSandboxClaims, OwnerSelector(owner)));
  AB_ASSIGN_OR_RETURN(json secrets, client.List(kSecrets, OwnerSelector(owner)));
  std::map<std::string, json> secret_of;
  for (json& secret : secrets["items"]) {
    std::string id = SandboxIdOf(secret);
    secret_of[id] = std::move(secret);
  }
  std::vector<SandboxRecord> records;
  for (const json& claim : claims.value("items", json::array())) {
    auto secret = secret_of.find(SandboxIdOf(claim));
    if (secret == secret_of.end() || Meta(claim).contains("deletionTimestamp")) continue;
    // A claim not bound yet is a sandbox being made (or one whose pod is lost): its record has no
    // agent address, as a pod's without an IP, and it still counts against its tenant's quota.
    auto record = RecordFromObjects(ClaimAsPod(claim), secret->second);
    if (!record.ok()) continue;
    record->kube_claim = record->kube_pod;
    record->kube_pod = ReadClaimBinding(claim).sandbox_name;
    records.push_back(std::move(record).value());
  }
  return records;
}

std::vector<std::string> CollectClaims(ApiClient& client, const std::string& owner,
                                       const std::function<bool(const std::string& id)>& is_live,
                                       std::set<std::string>* kept,
                                       std::set<std::string>* kept_sessions) {
  auto claims = client.List(kSandboxClaims, OwnerSelector(owner));
  if (!claims.ok()) return {};
  const int64_t now = std::time(nullptr);
  std::vector<std::string> removed;
  for (const json& claim : claims->value("items", json::array())) {
    const std::string id = SandboxIdOf(claim);
    if (id.empty()) continue;
    const json meta = Meta(claim);
    const int64_t expires = std::atoll(
        meta.value("annotations", json::object()).value(kAnnotationExpiresAt, "0").c_str());
    auto made = ParseRfc3339(meta.value("creationTimestamp", std::string()));
    const bool stale = !ReadClaimBinding(claim).ready && made &&
                       now - WallClock::to_time_t(*made) >= kBindGraceSeconds;
    const bool over =
        meta.contains("deletionTimestamp") || (expires > 0 && now >= expires) || stale;
    if (is_live(id) || !over) {
      kept->insert(id);
      const std::string session = meta.value("labels", json::object()).value(kLabelMcpSession, "");
      if (!session.empty()) kept_sessions->insert(session);
      continue;
    }
    Status st = client.Delete(kSandboxClaims, meta.value("name", ""));
    if (st.ok() || st.code() == StatusCode::kNotFound) {
      removed.push_back("kubernetes sandboxclaims " + client.namespace_name() + "/" +
                        meta.value("name", "") + " (sandbox " + id + ")");
    }
  }
  return removed;
}

}  // namespace agentbox::kubernetes
