#include "core/sandbox_record.h"

#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "policy/image_user.h"
#include "spec/spec_json.h"

namespace agentbox {

using nlohmann::json;

namespace {

json QuotaToJson(const WorkspaceQuota& q) {
  return {{"mechanism", QuotaMechanismName(q.mechanism)},
          {"id", q.id},
          {"limit_bytes", q.limited() ? json(q.limit_bytes) : json()},
          {"baseline_bytes", q.baseline_bytes},
          {"inode_limit", q.inode_limit},
          {"pool_volume", q.pool_volume},
          {"not_enforced", q.not_enforced}};
}

WorkspaceQuota QuotaFromJson(const json& j) {  // throws json::exception when malformed
  WorkspaceQuota q;
  const std::string mechanism = j.at("mechanism").get<std::string>();
  for (QuotaMechanism m : {QuotaMechanism::kBtrfsQgroup, QuotaMechanism::kProjectQuota}) {
    if (mechanism == QuotaMechanismName(m)) q.mechanism = m;
  }
  q.id = j.at("id").get<uint64_t>();
  q.limit_bytes =
      j.at("limit_bytes").is_null() ? kNoDiskLimit : j.at("limit_bytes").get<uint64_t>();
  q.baseline_bytes = j.at("baseline_bytes").get<uint64_t>();
  q.inode_limit = j.at("inode_limit").get<uint64_t>();
  q.pool_volume = j.at("pool_volume").get<std::string>();
  q.not_enforced = j.at("not_enforced").get<std::string>();
  return q;
}

}  // namespace

int64_t ExpiryOf(const SandboxSpec& spec, int64_t now) {
  if (spec.ttl_seconds == 0) return 0;
  return now + static_cast<int64_t>(std::ceil(spec.ttl_seconds));
}

bool HasExpired(const SandboxRecord& record, int64_t now) {
  return record.expires_at != 0 && now >= record.expires_at;
}

std::string SandboxRecordToJson(const SandboxRecord& r) {
  json j = {{"id", r.id},
            {"name", r.name},
            {"backend", BackendName(r.backend)},
            {"created_at", r.created_at},
            {"expires_at", r.expires_at},
            {"policy", SpecToPolicyJson(r.spec)},
            {"workspace", r.workspace},
            {"workspace_temporary", r.workspace_temporary},
            {"disk_quota", QuotaToJson(r.disk_quota)},
            {"forked_from", r.forked_from},
            {"workspace_source", r.workspace_source},
            {"digest_seed", r.digest_seed},
            {"state_dir", r.state_dir},
            {"agent_socket", r.agent_socket},
            {"agent_token", r.agent_token},
            {"init_pid", r.init_pid},
            {"init_start_time", r.init_start_time},
            {"cgroup", r.cgroup},
            {"cgroup_location", r.cgroup_location},
            {"image_id", r.image_id},
            {"user", SandboxUserText(r.spec.user)},
            {"container_id", r.container_id},
            {"egress_pid", r.egress_pid},
            {"egress_start_time", r.egress_start_time},
            {"egress_socket", r.egress_socket},
            {"egress_relay", r.egress_relay},
            {"egress_background_port", r.egress_background_port},
            {"pool_key", r.pool_key},
            {"adopted", r.adopted}};
  if (!r.tenant.empty()) j["tenant"] = {{"tenant", r.tenant}, {"name", r.tenant_name}};
  if (!r.mcp_session.empty()) j["mcp_session"] = r.mcp_session;
  if (r.backend == BackendKind::kKubernetes) {
    j["kubernetes"] = {{"kubeconfig", r.spec.kube.kubeconfig},
                       {"context", r.spec.kube.context},
                       {"namespace", r.spec.kube.namespace_name},
                       {"pod", r.kube_pod}};
    if (!r.kube_claim.empty()) j["kubernetes"]["claim"] = r.kube_claim;
  }
  return j.dump(2) + "\n";
}

StatusOr<SandboxRecord> SandboxRecordFromJson(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Internal("corrupt sandbox record");
  SandboxRecord r;
  std::string backend_name;
  try {
    r.id = j.at("id").get<std::string>();
    r.name = j.at("name").get<std::string>();
    backend_name = j.at("backend").get<std::string>();
    r.created_at = j.at("created_at").get<std::string>();
    r.expires_at = j.value("expires_at", int64_t{0});  // records from before ttl: none
    r.workspace = j.at("workspace").get<std::string>();
    r.workspace_temporary = j.at("workspace_temporary").get<bool>();
    // Records written before the quota: nothing to release, nothing enforced.
    if (j.contains("disk_quota")) r.disk_quota = QuotaFromJson(j.at("disk_quota"));
    r.forked_from = j.value("forked_from", "");
    r.workspace_source = j.value("workspace_source", "");
    r.digest_seed = j.value("digest_seed", "");
    r.state_dir = j.at("state_dir").get<std::string>();
    r.agent_socket = j.at("agent_socket").get<std::string>();
    r.agent_token = j.value("agent_token", "");  // unix-socket sandboxes, older records: none
    r.init_pid = j.at("init_pid").get<pid_t>();
    r.init_start_time = j.at("init_start_time").get<uint64_t>();
    r.cgroup = j.at("cgroup").get<std::string>();
    if (j.contains("cgroup_location")) {
      r.cgroup_location = j.at("cgroup_location").get<std::map<std::string, std::string>>();
    }
    r.image_id = j.value("image_id", "");
    r.container_id = j.value("container_id", "");
    r.egress_pid = j.value("egress_pid", 0);
    r.egress_start_time = j.value("egress_start_time", uint64_t{0});
    r.egress_socket = j.value("egress_socket", "");
    r.egress_relay = j.value("egress_relay", "");
    r.egress_background_port = j.value("egress_background_port", uint16_t{0});
    r.pool_key = j.value("pool_key", "");
    r.adopted = j.value("adopted", false);
    if (j.contains("tenant") && j.at("tenant").is_object()) {
      r.tenant = j.at("tenant").value("tenant", "");
      r.tenant_name = j.at("tenant").value("name", "");
    }
    r.mcp_session = j.value("mcp_session", "");
  } catch (const json::exception& e) {
    return Internal(std::string("corrupt sandbox record: ") + e.what());
  }
  std::optional<BackendKind> backend = BackendFromName(backend_name);
  if (!backend) return Internal("corrupt sandbox record: unknown backend \"" + backend_name + "\"");
  r.backend = *backend;
  AB_ASSIGN_OR_RETURN(r.spec, SpecFromPolicyJson(j.at("policy")));
  // Who commands run as (an image's user); records from before it: the default.
  if (j.contains("user") && j.at("user").is_string()) {
    auto user = ParseSandboxUser(j.at("user").get<std::string>());
    if (!user.ok()) return Internal("corrupt sandbox record: " + user.status().message());
    r.spec.user = *user;
  }
  if (j.contains("kubernetes") && j.at("kubernetes").is_object()) {
    const json& k = j.at("kubernetes");
    r.spec.kube = {k.value("kubeconfig", ""), k.value("context", ""), k.value("namespace", "")};
    r.kube_pod = k.value("pod", "");
    r.kube_claim = k.value("claim", "");
  }
  return r;
}

std::string NowRfc3339() { return Rfc3339(std::time(nullptr)); }

std::string Rfc3339(int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm = {};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace agentbox
