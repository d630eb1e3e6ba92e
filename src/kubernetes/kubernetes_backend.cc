#include "kubernetes/kubernetes_backend.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "backend_common/sandbox_egress.h"
#include "backend_common/sandbox_resources.h"
#include "base/build_info.h"
#include "base/sha256.h"
#include "core/agent_client.h"
#include "core/pids_limit.h"
#include "kubernetes/claim_manifests.h"
#include "kubernetes/claim_sandbox.h"
#include "kubernetes/cluster_target.h"
#include "kubernetes/mcp_session_secret.h"
#include "kubernetes/network_policy_check.h"
#include "kubernetes/object_names.h"
#include "kubernetes/pod_record.h"
#include "kubernetes/sandbox_pod.h"
#include "proc/cgroup_stats_wire.h"
#include "proto/agent_protocol.h"
#include "sys/file_util.h"
#include "sys/random_id.h"

namespace agentbox {
namespace {

using kubernetes::ApiClient;

// A pod's start: scheduling, the init container's copy and the agent's start, with an image
// pull on a real cluster. Beyond this the create fails, naming what the pod waits for.
constexpr auto kStartTimeout = std::chrono::seconds(120);

Status Prefixed(const Status& st) {
  if (st.ok()) return st;
  return Status(st.code(), "backend kubernetes: " + st.message());
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

// What a pod cannot be given: said at once, before anything is made in the cluster.
Status CheckSupported(const SandboxSpec& spec) {
  if (spec.rootfs) {
    return InvalidArgument(
        "--rootfs is for the native backend; the kubernetes backend takes --image");
  }
  if (spec.workspace) {
    return InvalidArgument(
        "--workspace names a host directory; a kubernetes sandbox's workspace is its pod's "
        "emptyDir (copy files in with agentbox cp)");
  }
  if (spec.clock_start_seconds) {
    // A time namespace needs a user namespace the pod's seccomp profile does not allow.
    return Unavailable("clock_start is not available on the kubernetes backend yet");
  }
  return OkStatus();
}

bool AgentAnswers(const SandboxRecord& record) {
  auto conn = ConnectAgent(record.agent());
  if (!conn.ok()) return false;
  if (!WriteFrame(conn->get(), FrameType::kRequest, R"({"op":"ping"})").ok()) return false;
  auto frame = ReadFrame(conn->get());
  return frame.ok() && ResponseStatus(frame->payload).ok();
}

StatusOr<CgroupStats> AgentBoxStats(const SandboxRecord& record) {
  AB_ASSIGN_OR_RETURN(UniqueFd conn, ConnectAgent(record.agent()));
  AB_ASSIGN_OR_RETURN(nlohmann::json answer, CallAgent(conn.get(), {{"op", kBoxStatsOp}}));
  return CgroupStatsFromJson(answer);
}

// A pod spec has no pids field: an asked-for pids limit stands only when the runtime's own
// pids.max holds it, which only the started pod's agent can read. The built-in default is
// reported instead (inspect's pids_limit, create's note), as native does with the disk limit.
Status RefuseUnheldExplicitPids(const SandboxRecord& record) {
  if (!record.spec.pids_limit_explicit) return OkStatus();
  auto stats = AgentBoxStats(record);
  if (!stats.ok()) return Prefixed(stats.status());
  const uint64_t want = record.spec.limits.pids;
  PidsLimitReport report = PidsLimitReportOf(want, ToResourceSnapshot(*stats).pids_limit, true);
  if (report.enforced == true) return OkStatus();
  return Unavailable(
      "backend kubernetes: the pids limit " + std::to_string(want) + " cannot be enforced: " +
      (report.reason.empty() ? "its pod's pids.max could not be read" : report.reason) +
      "; leave out the pids limit to run with it reported as not enforced");
}

// The namespace serve runs in when it runs in a pod: the sandboxes' NetworkPolicy admits serve's
// pods from there.
std::string OwnNamespace() {
  if (std::getenv("KUBERNETES_SERVICE_HOST") == nullptr) return "";
  auto ns = ReadFile(std::string(kubernetes::kServiceAccountDir) + "/namespace");
  if (!ns.ok()) return "";
  while (!ns->empty() && (ns->back() == '\n' || ns->back() == ' ')) ns->pop_back();
  return *ns;
}

// The agentbox.dev/owner label's value: $AGENTBOX_KUBE_OWNER, shared by serve's replicas (hashed
// when it is no label value), else a hash of the host name and the state dir.
std::string OwnerLabel(const std::string& state_root) {
  const std::string given = EnvOr("AGENTBOX_KUBE_OWNER", "");
  if (kubernetes::IsLabelValue(given)) return given;
  if (!given.empty()) return Sha256Of(given).substr(7, 32);
  char host[256] = {};
  (void)::gethostname(host, sizeof(host) - 1);
  return Sha256Of(std::string(host) + "\n" + state_root).substr(7, 32);
}

// Whether the operator named a cluster in agentbox's environment (or it runs in a pod): only
// then do lookups and `ls` ask it for sandboxes (a ~/.kube/config alone is not asked).
bool ClusterConfigured() {
  for (const char* name : {"KUBECONFIG", "AGENTBOX_KUBE_CONTEXT", "AGENTBOX_KUBE_NAMESPACE",
                           "AGENTBOX_KUBE_OWNER", "KUBERNETES_SERVICE_HOST"}) {
    if (!EnvOr(name, "").empty()) return true;
  }
  return false;
}

// AGENTBOX_KUBE_SANDBOX_CLAIMS=1 (the operator's environment, never a policy key): sandboxes
// are made through agent-sandbox's SandboxClaim (kubernetes/claim_sandbox.h), and refused when
// the cluster does not serve it.
bool ClaimsMode() {
  const std::string value = EnvOr("AGENTBOX_KUBE_SANDBOX_CLAIMS", "");
  return !value.empty() && value != "0";
}

class KubernetesBackend : public Backend {
 public:
  explicit KubernetesBackend(const std::string& state_root) : owner_(OwnerLabel(state_root)) {}

  Status Create(SandboxRecord& record) override {
    AB_RETURN_IF_ERROR(Prefixed(CheckSupported(record.spec)));
    AB_ASSIGN_OR_RETURN(ApiClient client, Client(record.spec.kube));
    record.spec.kube.namespace_name = client.namespace_name();
    record.kube_pod = kubernetes::PodName(record.id);
    record.agent_token = RandomHexId() + RandomHexId();  // 32 bytes from getrandom
    record.workspace_temporary = true;                   // the pod's emptyDir goes with it
    // Written on the pod, so its lifetime starts here (a warm one's when a create claims it).
    if (record.pool_key.empty()) record.expires_at = ExpiryOf(record.spec, std::time(nullptr));
    if (ClaimsMode()) return CreateByClaim(client, record);
    Status st = Prefixed(kubernetes::CreateSandboxObjects(
        client, record.spec, Inputs(record, client), record.agent_token));
    if (st.ok()) st = Start(client, record);
    return FinishCreate(client, record, st);
  }

  // The end of either create, once the agent answers (`st` OK): a pids limit asked for that the
  // pod cannot hold refused, the egress proxy started; on any failure nothing of the sandbox is
  // left (its proxy, and its pod's or its claim's objects).
  Status FinishCreate(ApiClient& client, SandboxRecord& record, Status st) {
    if (st.ok()) st = RefuseUnheldExplicitPids(record);
    if (st.ok() && !record.spec.allow_hosts.empty()) st = StartEgress(record);
    if (!st.ok()) {
      StopSandboxEgress(record);
      (void)(record.kube_claim.empty() ? kubernetes::DeleteSandboxObjects(client, record.id)
                                       : kubernetes::DeleteClaimObjects(client, record.id));
    }
    return st;
  }

  // Through agent-sandbox: the shape's SandboxTemplate (the pod spec agentbox wrote, its agent
  // waiting for its claim), a SandboxClaim of it, and once the controller bound it to a running
  // pod (fresh, or a warm one of a SandboxWarmPool), the claim hello giving that pod's agent
  // this sandbox's fresh token. A refused claim (the pod claimed already) fails the create.
  Status CreateByClaim(ApiClient& client, SandboxRecord& record) {
    AB_RETURN_IF_ERROR(Prefixed(kubernetes::CheckClaimsServed(client)));
    record.kube_claim = kubernetes::PodName(record.id);
    // The template's agent args are always --token-by-claim's (SandboxTemplateManifest).
    const kubernetes::ManifestInputs in = Inputs(record, client);
    const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
    Status st = Prefixed(
        kubernetes::CreateClaimObjects(client, record.spec, in, record.agent_token).status());
    if (st.ok()) {
      auto bound = kubernetes::AwaitClaimBound(client, record.id, deadline);
      if (bound.ok()) {
        record.kube_pod = bound->pod;
        record.agent_socket = kubernetes::AgentAddress(bound->ip);
        st = Prefixed(kubernetes::ClaimAgent(record.agent_socket, record.agent_token, deadline));
      } else {
        st = Prefixed(bound.status());
      }
    }
    if (st.ok() && !AgentAnswers(record)) {
      st = Unavailable("backend kubernetes: the agent of " + record.kube_claim +
                       "'s pod does not answer after its claim");
    }
    return FinishCreate(client, record, st);
  }

  StatusOr<std::unique_ptr<ExecEgress>> OpenExecEgress(const SandboxRecord& record) override {
    return OpenSandboxEgress(record);
  }

  // A sandbox found through this state dir but made elsewhere (another state dir, another
  // serve replica, serve restarted on an empty one) has no proxy here, and a proxy ends with
  // its relay's background listener: this host starts its own, exactly as Create does, with the
  // policy the pod's record carries. Another host's proxy for the same sandbox is no concern:
  // each holds relay listeners of its own (each exec's and its background one), so every
  // command's HTTP_PROXY names a listener of the proxy of the host it was run through.
  Status ResumeEgress(SandboxRecord& record) override {
    if (record.spec.allow_hosts.empty() || SandboxEgressRuns(record)) return OkStatus();
    record.egress_pid = 0;
    record.egress_start_time = 0;
    record.egress_socket.clear();
    record.egress_background_port = 0;
    Status st = StartEgress(record);
    if (!st.ok()) StopSandboxEgress(record);
    return st;
  }

  bool IsAlive(const SandboxRecord& record) override {
    return !record.agent_socket.empty() && AgentAnswers(record);
  }

  // The cluster's sandboxes of this owner in the namespace the environment names.
  StatusOr<std::vector<SandboxRecord>> Adoptable() override {
    if (!ClusterConfigured()) return std::vector<SandboxRecord>();
    AB_ASSIGN_OR_RETURN(ApiClient client, Client({}));
    auto records = kubernetes::ListSandboxRecords(client, owner_);
    if (!records.ok()) return Prefixed(records.status());
    if (ClaimsMode()) {
      auto claimed = kubernetes::ListClaimRecords(client, owner_);
      if (!claimed.ok()) return Prefixed(claimed.status());
      for (SandboxRecord& r : *claimed) records->push_back(std::move(r));
    }
    return records;
  }

  bool Gone(const SandboxRecord& record) override {
    auto client = Client(record.spec.kube);
    if (!client.ok()) return false;
    if (!record.kube_claim.empty()) {
      auto gone = kubernetes::ClaimGone(*client, record.id);
      return gone.ok() && *gone;
    }
    // No pod, or one on its way out (a removal through another state dir, still stopping).
    auto pod = client->Get(kubernetes::kPods, kubernetes::PodName(record.id));
    if (!pod.ok()) return pod.status().code() == StatusCode::kNotFound;
    return pod->value("metadata", nlohmann::json::object()).contains("deletionTimestamp");
  }

  Status Destroy(const SandboxRecord& record) override {
    StopSandboxEgress(record);  // whatever the cluster says: no proxy outlives its sandbox here
    AB_ASSIGN_OR_RETURN(ApiClient client, Client(record.spec.kube));
    if (!record.kube_claim.empty()) {
      return Prefixed(kubernetes::DeleteClaimObjects(client, record.id));
    }
    return Prefixed(kubernetes::DeleteSandboxObjects(client, record.id));
  }

  // The pod's container cgroup, as its agent reads it (the node's cgroupfs is not ours to
  // read): what it cannot read is 0, and verify then says unknown rather than made up.
  StatusOr<ResourceSnapshot> Snapshot(const SandboxRecord& record) override {
    AB_ASSIGN_OR_RETURN(CgroupStats stats, AgentBoxStats(record));
    return ToResourceSnapshot(stats);
  }

  // The sandbox's NetworkPolicy read back from the cluster (what the probe inside cannot see).
  std::vector<VerifyCheck> VerifyChecks(const SandboxRecord& record) override {
    auto client = Client(record.spec.kube);
    if (!client.ok()) return {kubernetes::NetworkPolicyCheck({}, client.status())};
    if (!record.kube_claim.empty()) return {TemplatePolicyCheck(record, *client)};
    auto live = client->Get(kubernetes::kNetworkPolicies, kubernetes::PodName(record.id));
    return {kubernetes::NetworkPolicyCheck(Inputs(record, *client), live)};
  }

  // The server, namespace and credentials' origin (context and file, or the service account)
  // that $KUBECONFIG and the rest resolve to now: a pool filled for one cluster never serves
  // another's create.
  StatusOr<std::string> PoolScope(const SandboxSpec& spec) override {
    auto access = kubernetes::ResolveCluster(spec.kube, kubernetes::ClusterEnvFromProcess());
    if (!access.ok()) return Prefixed(access.status());
    return access->server + "\n" + access->namespace_name + "\n" + access->origin +
           (ClaimsMode() ? "\nsandbox-claims" : "");
  }

  // Only with an owner the operator named: the replicas of one serve share it, and a session is
  // no business of an agentbox whose owner is its own host and state dir.
  bool SharesMcpSessions() override {
    return ClusterConfigured() && !EnvOr("AGENTBOX_KUBE_OWNER", "").empty();
  }

  Status SaveMcpSession(const SharedMcpSession& session) override {
    AB_ASSIGN_OR_RETURN(ApiClient client, Client({}));
    AB_ASSIGN_OR_RETURN(nlohmann::json secret,
                        kubernetes::McpSessionSecret(session, owner_, NowRfc3339()));
    return Prefixed(client.Create(kubernetes::kSecrets, secret).status());
  }

  StatusOr<SharedMcpSession> LoadMcpSession(const std::string& key) override {
    AB_ASSIGN_OR_RETURN(ApiClient client, Client({}));
    auto secret = client.Get(kubernetes::kSecrets, kubernetes::McpSessionSecretName(key));
    if (!secret.ok()) return Prefixed(secret.status());
    // Being deleted (ended through another replica): over already.
    if (secret->value("metadata", nlohmann::json::object()).contains("deletionTimestamp")) {
      return NotFound("no MCP session " + key);
    }
    return kubernetes::McpSessionFromSecret(*secret, owner_);
  }

  Status DeleteMcpSession(const std::string& key) override {
    AB_ASSIGN_OR_RETURN(ApiClient client, Client({}));
    Status st = client.Delete(kubernetes::kSecrets, kubernetes::McpSessionSecretName(key));
    if (st.code() == StatusCode::kNotFound) return OkStatus();
    return Prefixed(st);
  }

  std::vector<std::string> CollectGarbage(const std::vector<std::string>& live_ids) override {
    auto client = Client({});
    if (!client.ok()) return {};  // no cluster here: nothing of ours can be in one
    auto is_live = [&](const std::string& id) {
      return std::find(live_ids.begin(), live_ids.end(), id) != live_ids.end();
    };
    if (!ClaimsMode()) return kubernetes::CollectSandboxObjects(*client, owner_, is_live);
    // The claims first: a claim that stays keeps its Secret and its MCP session's (its pod has no
    // sandbox or session label).
    std::set<std::string> kept, kept_sessions;
    auto removed = kubernetes::CollectClaims(*client, owner_, is_live, &kept, &kept_sessions);
    for (std::string& line : kubernetes::CollectSandboxObjects(
             *client, owner_, [&](const std::string& id) { return is_live(id) || kept.count(id); },
             kept_sessions)) {
      removed.push_back(std::move(line));
    }
    return removed;
  }

 private:
  StatusOr<ApiClient> Client(const KubernetesTarget& target) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto key = target.kubeconfig + "\n" + target.context + "\n" + target.namespace_name;
    if (auto it = clients_.find(key); it != clients_.end()) return it->second;
    auto access = kubernetes::ResolveCluster(target, kubernetes::ClusterEnvFromProcess());
    if (!access.ok()) return Prefixed(access.status());
    return clients_.emplace(key, ApiClient::FromAccess(*access)).first->second;
  }

  kubernetes::ManifestInputs Inputs(const SandboxRecord& record, ApiClient& client) const {
    kubernetes::ManifestInputs in;
    in.id = record.id;
    in.agent_image =
        EnvOr("AGENTBOX_KUBE_AGENT_IMAGE", std::string("agentbox-agent:") + kAgentboxVersion);
    in.agent_args = kubernetes::AgentArgs(record.spec);
    in.runtime_class_name = record.spec.runtime;
    in.owner = owner_;
    in.identity = kubernetes::IdentityOf(record);
    const std::string own = OwnNamespace();
    if (own != client.namespace_name()) in.server_namespace = own;
    return in;
  }

  // A claim sandbox's pod is policed by its template's NetworkPolicy (claim_manifests.h).
  VerifyCheck TemplatePolicyCheck(const SandboxRecord& record, ApiClient& client) {
    const kubernetes::ManifestInputs in = Inputs(record, client);
    auto tmpl = kubernetes::SandboxTemplateManifest(record.spec, in);
    if (!tmpl.ok()) return kubernetes::NetworkPolicyCheck(in, tmpl.status());
    const std::string name = (*tmpl)["metadata"]["name"];
    auto live = client.Get(kubernetes::kNetworkPolicies, name);
    const nlohmann::json want = kubernetes::TemplateNetworkPolicy(in, name);
    return kubernetes::NetworkPolicyCheck(in, live, &want);
  }

  // allow_hosts: the sandbox's egress proxy on this host (backend_common/sandbox_egress.h). The
  // pod itself has no egress (its NetworkPolicy allows none): a command's connection goes to
  // its exec's listener on the pod's loopback, which the agent's egress relay holds, and on
  // through the relay's connection to the proxy, which this host made to the pod's agent port
  // with the sandbox's token (agent/egress_relay.h). Every check is the proxy's.
  Status StartEgress(SandboxRecord& record) {
    record.egress_relay = record.agent_socket;
    Status st = StartSandboxEgress(record);
    if (st.ok()) return st;
    return Status(st.code(), "backend kubernetes: the sandbox's egress proxy: " + st.message());
  }

  // The pod running with an IP, then its agent answering the token handshake.
  Status Start(ApiClient& client, SandboxRecord& record) {
    const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
    auto ip = kubernetes::AwaitPodIp(client, record.id, deadline);
    if (!ip.ok()) return Prefixed(ip.status());
    record.agent_socket = kubernetes::AgentAddress(*ip);
    auto delay = std::chrono::milliseconds(2);
    while (std::chrono::steady_clock::now() < deadline) {
      if (AgentAnswers(record)) return OkStatus();
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, std::chrono::milliseconds(200));
    }
    const std::string state = kubernetes::DescribePod(client, record.id);
    return Unavailable("backend kubernetes: the agent of pod " + client.namespace_name() + "/" +
                       record.kube_pod + " did not answer at " + *ip + " within " +
                       std::to_string(kStartTimeout.count()) + " s" +
                       (state.empty() ? "" : " (" + state + ")"));
  }

  std::string owner_;
  std::mutex mutex_;
  std::map<std::string, ApiClient> clients_;
};

}  // namespace

std::unique_ptr<Backend> MakeKubernetesBackend(const std::string& state_root) {
  return std::make_unique<KubernetesBackend>(state_root);
}

}  // namespace agentbox
