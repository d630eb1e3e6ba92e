#include "kubernetes/sandbox_pod.h"

#include <ctime>
#include <map>
#include <set>
#include <string_view>

#include "kubernetes/exec_credential.h"
#include "kubernetes/mcp_session_secret.h"
#include "kubernetes/object_names.h"
#include "kubernetes/pod_manifest.h"
#include "kubernetes/pod_record.h"
#include "kubernetes/pod_state.h"
#include "kubernetes/sandbox_objects.h"
#include "kubernetes/watch.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

constexpr ResourceKind kSandboxKinds[] = {kPods, kSecrets, kNetworkPolicies};

// How long a Secret or NetworkPolicy without its pod is left alone by `gc`: another agentbox
// sharing the owner may be creating the sandbox (its objects are made one after the other).
constexpr int64_t kCreateGraceSeconds = 300;

std::string Where(ApiClient& client, const std::string& id) {
  return "pod " + client.namespace_name() + "/" + PodName(id);
}

std::string NameOf(const json& object) {
  return object.value("metadata", json::object()).value("name", "");
}

std::string LabelOf(const json& object, const char* label) {
  return object.value("metadata", json::object()).value("labels", json::object()).value(label, "");
}

std::string SandboxIdOf(const json& object) { return LabelOf(object, kLabelSandbox); }

bool Young(const json& object, int64_t now) {
  auto made = ParseRfc3339(
      object.value("metadata", json::object()).value("creationTimestamp", std::string()));
  return !made || now - WallClock::to_time_t(*made) < kCreateGraceSeconds;
}

}  // namespace

Status CreateSandboxObjects(ApiClient& client, const SandboxSpec& spec, const ManifestInputs& in,
                            const std::string& token) {
  AB_ASSIGN_OR_RETURN(json secret, AgentTokenSecret(in, token, EnvSecretValue(spec)));
  // Each manifest made once before anything is created: one refused leaves nothing behind.
  AB_RETURN_IF_ERROR(SandboxNetworkPolicy(in).status());
  AB_RETURN_IF_ERROR(PodManifest(spec, in).status());
  AB_ASSIGN_OR_RETURN(json made, client.Create(kSecrets, secret));
  // The Secret is the root: the policy and the pod are its dependents, so the cluster's garbage
  // collector removes them when it goes (its uid is only known now).
  ManifestInputs owned = in;
  AB_ASSIGN_OR_RETURN(OwnerReference root, SecretOwner(made));
  owned.owners.push_back(std::move(root));
  AB_ASSIGN_OR_RETURN(json policy, SandboxNetworkPolicy(owned));
  AB_ASSIGN_OR_RETURN(json pod, PodManifest(spec, owned));
  AB_RETURN_IF_ERROR(client.Create(kNetworkPolicies, policy).status());
  return client.Create(kPods, pod).status();
}

StatusOr<std::string> AwaitPodIp(ApiClient& client, const std::string& id,
                                 std::chrono::steady_clock::time_point deadline) {
  const std::string pod_name = PodName(id);
  PodStartState last;
  bool deleted = false;
  // true: keep watching.
  auto consider = [&](const json& pod) {
    if (NameOf(pod) != pod_name) return true;
    last = ReadPodStartState(pod);
    return last.kind == PodStartState::kStarting;
  };
  WatchHandlers handlers;
  handlers.on_list = [&](const json& list) {
    for (const json& item : list.value("items", json::array())) {
      if (!consider(item)) return false;
    }
    return true;
  };
  handlers.on_event = [&](const WatchEvent& event) {
    if (event.type == "DELETED" && NameOf(event.object) == pod_name) {
      deleted = true;
      return false;
    }
    return consider(event.object);
  };
  WatchOptions options;
  options.timeout_seconds = 60;
  options.max_failures = 3;
  options.deadline = deadline;
  Status watched = Watch(client, kPods, SandboxSelector(id), handlers, options);
  if (deleted) return Unavailable(Where(client, id) + " was deleted while it started");
  if (last.kind == PodStartState::kRunning) return last.ip;
  if (last.kind == PodStartState::kFailed) {
    return Unavailable(Where(client, id) + " will not start (" + last.detail + ")");
  }
  if (watched.ok() || watched.message() == "the watch reached its deadline") {
    return Unavailable(Where(client, id) + " did not start in time (" + last.detail + ")");
  }
  return watched;
}

std::string DescribePod(ApiClient& client, const std::string& id) {
  auto pod = client.Get(kPods, PodName(id));
  return pod.ok() ? ReadPodStartState(*pod).detail : "";
}

Status DeleteSandboxObjects(ApiClient& client, const std::string& id) {
  Status first;
  for (const ResourceKind& kind : kSandboxKinds) {
    const bool secret = std::string_view(kind.plural) == kSecrets.plural;
    const std::string name = secret ? SecretName(id) : PodName(id);
    Status st = client.Delete(kind, name);
    if (!st.ok() && st.code() != StatusCode::kNotFound && first.ok()) first = st;
  }
  return first;
}

StatusOr<std::vector<SandboxRecord>> ListSandboxRecords(ApiClient& client,
                                                        const std::string& owner) {
  AB_ASSIGN_OR_RETURN(json pods, client.List(kPods, OwnerSelector(owner)));
  AB_ASSIGN_OR_RETURN(json secrets, client.List(kSecrets, OwnerSelector(owner)));
  std::map<std::string, json> secret_of;
  for (json& secret : secrets["items"]) {
    std::string id = SandboxIdOf(secret);  // first: the assignment below moves secret away
    secret_of[id] = std::move(secret);
  }
  std::vector<SandboxRecord> records;
  for (const json& pod : pods.value("items", json::array())) {
    auto secret = secret_of.find(SandboxIdOf(pod));
    if (secret == secret_of.end()) continue;  // being made or removed
    // Being deleted (removed through another replica): no one's to adopt, nor a tenant's to count.
    if (pod.value("metadata", json::object()).contains("deletionTimestamp")) continue;
    auto record = RecordFromObjects(pod, secret->second);
    if (record.ok()) records.push_back(std::move(record).value());
  }
  return records;
}

std::vector<std::string> CollectSandboxObjects(
    ApiClient& client, const std::string& owner,
    const std::function<bool(const std::string& id)>& is_live,
    const std::set<std::string>& claims_sessions) {
  // What the cluster says lives, whoever of the owner made it: pods not ended nor expired.
  const int64_t now = std::time(nullptr);
  auto pods = client.List(kPods, OwnerSelector(owner));
  if (!pods.ok()) return {};  // what lives cannot be told: remove nothing
  std::set<std::string> alive, live_sessions = claims_sessions;
  for (const json& pod : pods->value("items", json::array())) {
    if (!PodIsLive(pod, now)) continue;
    alive.insert(SandboxIdOf(pod));
    live_sessions.insert(LabelOf(pod, kLabelMcpSession));
  }
  std::vector<std::string> removed;
  for (const ResourceKind& kind : kSandboxKinds) {
    auto list = client.List(kind, OwnerSelector(owner));
    if (!list.ok()) continue;
    for (const json& item : list->value("items", json::array())) {
      if (std::string_view(kind.plural) == kSecrets.plural &&
          McpSessionAbandoned(item, live_sessions, now)) {
        Status st = client.Delete(kind, NameOf(item));
        if (st.ok() || st.code() == StatusCode::kNotFound) {
          removed.push_back("kubernetes secrets " + client.namespace_name() + "/" + NameOf(item) +
                            " (MCP session without a sandbox)");
        }
        continue;
      }
      const std::string id = SandboxIdOf(item);
      if (id.empty() || is_live(id) || alive.count(id) > 0) continue;
      if (std::string_view(kind.plural) != kPods.plural && Young(item, now)) continue;
      Status st = client.Delete(kind, NameOf(item));
      if (st.ok() || st.code() == StatusCode::kNotFound) {
        removed.push_back(std::string("kubernetes ") + kind.plural + " " + client.namespace_name() +
                          "/" + NameOf(item) + " (sandbox " + id + ")");
      }
    }
  }
  return removed;
}

}  // namespace agentbox::kubernetes
