#include "kubernetes/pod_record.h"

#include <cstdlib>

#include "base/base64.h"
#include "kubernetes/object_names.h"
#include "policy/image_user.h"
#include "spec/spec_json.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

json Member(const json& object, const char* key) {
  return object.is_object() ? object.value(key, json::object()) : json::object();
}

std::string Text(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// A base64 value of the Secret's data; "" when it has none.
std::optional<std::string> SecretValue(const json& secret, const char* key) {
  const std::string encoded = Text(Member(secret, "data"), key);
  if (encoded.empty()) return std::string();
  return Base64Decode(encoded);
}

Status Corrupt(const std::string& pod, const std::string& what) {
  return InvalidArgument("pod " + pod + " does not hold an agentbox sandbox's record: " + what);
}

// The spec annotation and the Secret's env back into a spec.
StatusOr<SandboxSpec> SpecOf(const std::string& pod, const std::string& annotation,
                             const std::string& env_text) {
  json j = json::parse(annotation, nullptr, false);
  if (!j.is_object() || !j.contains("policy") || !j["policy"].is_object()) {
    return Corrupt(pod, "no " + std::string(kAnnotationSpec) + " annotation");
  }
  json policy = j["policy"];
  policy["env"] = env_text.empty() ? json::object() : json::parse(env_text, nullptr, false);
  if (!policy["env"].is_object()) return Corrupt(pod, "its Secret's env is not a JSON object");
  auto spec = SpecFromPolicyJson(policy);
  if (!spec.ok()) return Corrupt(pod, spec.status().message());
  auto user = ParseSandboxUser(Text(j, "user"));
  if (!user.ok()) return Corrupt(pod, user.status().message());
  spec->user = *user;
  spec->backend = BackendKind::kKubernetes;
  return spec;
}

}  // namespace

json RecordAnnotations(const SandboxSpec& spec, const SandboxIdentity& identity) {
  json policy = SpecToPolicyJson(spec);
  policy.erase("env");  // the Secret's: values given with -e may be credentials
  json annotations = {
      {kAnnotationExpiresAt, std::to_string(identity.expires_at)},
      {kAnnotationSpec, json{{"policy", policy}, {"user", SandboxUserText(spec.user)}}.dump()},
  };
  if (!identity.name.empty()) annotations[kAnnotationName] = identity.name;
  if (!identity.created_at.empty()) annotations[kAnnotationCreatedAt] = identity.created_at;
  if (identity.warm) annotations[kAnnotationWarm] = "true";
  if (!identity.tenant.empty()) {
    annotations[kAnnotationTenant] = identity.tenant;
    if (!identity.tenant_name.empty()) annotations[kAnnotationTenantName] = identity.tenant_name;
  }
  return annotations;
}

SandboxIdentity IdentityOf(const SandboxRecord& record) {
  return {record.name,   record.created_at,  record.expires_at, !record.pool_key.empty(),
          record.tenant, record.tenant_name, record.mcp_session};
}

std::string EnvSecretValue(const SandboxSpec& spec) {
  if (spec.env.empty()) return "";
  json env = json::object();
  for (const auto& [key, value] : spec.env) env[key] = value;
  return env.dump();
}

std::string AgentAddress(const std::string& ip) {
  const std::string host = ip.find(':') == std::string::npos ? ip : "[" + ip + "]";
  return "tcp:" + host + ":" + std::to_string(kAgentPort);
}

StatusOr<SandboxRecord> RecordFromObjects(const json& pod, const json& secret) {
  const json meta = Member(pod, "metadata");
  const json labels = Member(meta, "labels");
  const json annotations = Member(meta, "annotations");
  const std::string pod_name = Text(meta, "namespace") + "/" + Text(meta, "name");
  if (Text(annotations, kAnnotationWarm) == "true") {
    return FailedPrecondition("pod " + pod_name + " waits in a warm pool");
  }
  SandboxRecord r;
  r.id = Text(labels, kLabelSandbox);
  AB_RETURN_IF_ERROR(CheckSandboxId(r.id));
  r.name = Text(annotations, kAnnotationName);
  r.tenant = Text(annotations, kAnnotationTenant);
  r.tenant_name = r.tenant.empty() ? "" : Text(annotations, kAnnotationTenantName);
  // The label is what a selector finds: a pod whose two disagree was changed by hand.
  if (!r.tenant.empty() && Text(labels, kLabelTenant) != NameLabelValue(r.tenant)) {
    return Corrupt(pod_name, "its " + std::string(kLabelTenant) + " label is not its tenant's");
  }
  r.mcp_session = Text(labels, kLabelMcpSession);
  if (!r.mcp_session.empty() && !IsLabelValue(r.mcp_session)) {
    return Corrupt(pod_name, "its " + std::string(kLabelMcpSession) + " label is no key");
  }
  r.backend = BackendKind::kKubernetes;
  r.created_at = Text(annotations, kAnnotationCreatedAt);
  const std::string expires = Text(annotations, kAnnotationExpiresAt);
  char* end = nullptr;
  r.expires_at = std::strtoll(expires.c_str(), &end, 10);
  if (r.created_at.empty() || expires.empty() || *end != '\0' || r.expires_at < 0) {
    return Corrupt(pod_name, "no created-at or expires-at annotation");
  }
  auto token = SecretValue(secret, kAgentTokenKey);
  auto env = SecretValue(secret, kSecretEnvKey);
  if (!token || token->empty() || !env) return Corrupt(pod_name, "its Secret holds no token");
  AB_ASSIGN_OR_RETURN(r.spec, SpecOf(pod_name, Text(annotations, kAnnotationSpec), *env));
  r.spec.kube.namespace_name = Text(meta, "namespace");
  r.kube_pod = Text(meta, "name");
  r.agent_token = *token;
  r.workspace_temporary = true;
  const std::string ip = Text(Member(pod, "status"), "podIP");
  if (!ip.empty()) r.agent_socket = AgentAddress(ip);
  return r;
}

bool PodIsLive(const json& pod, int64_t now) {
  const json meta = Member(pod, "metadata");
  if (meta.contains("deletionTimestamp")) return false;
  const std::string phase = Text(Member(pod, "status"), "phase");
  if (phase == "Succeeded" || phase == "Failed") return false;
  const std::string expires = Text(Member(meta, "annotations"), kAnnotationExpiresAt);
  const int64_t at = std::atoll(expires.c_str());
  return at == 0 || now < at;
}

}  // namespace agentbox::kubernetes
