#include "kubernetes/mcp_session_secret.h"

#include "kubernetes/exec_credential.h"
#include "kubernetes/object_names.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

std::string Text(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

json Member(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : json::object();
}

}  // namespace

std::string McpSessionSecretName(std::string_view key) {
  return kMcpSessionPrefix + std::string(key);
}

StatusOr<json> McpSessionSecret(const SharedMcpSession& session, const std::string& owner,
                                const std::string& created_at) {
  if (!IsLabelValue(session.key)) return InvalidArgument("MCP session key is no label value");
  json labels = {{kLabelManagedBy, kManagedByValue}, {kLabelMcpSession, session.key}};
  if (!owner.empty()) labels[kLabelOwner] = owner;
  json annotations = {{kAnnotationCreatedAt, created_at}, {kAnnotationTenant, session.tenant}};
  if (!session.tenant.empty()) labels[kLabelTenant] = NameLabelValue(session.tenant);
  return json{{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"type", "Opaque"},
              {"immutable", true},
              {"metadata",
               {{"name", McpSessionSecretName(session.key)},
                {"labels", labels},
                {"annotations", annotations}}}};
}

StatusOr<SharedMcpSession> McpSessionFromSecret(const json& secret, const std::string& owner) {
  const json meta = Member(secret, "metadata");
  const json labels = Member(meta, "labels");
  const json annotations = Member(meta, "annotations");
  const std::string name = Text(meta, "name");
  SharedMcpSession session;
  session.key = Text(labels, kLabelMcpSession);
  if (Text(labels, kLabelOwner) != owner || Text(labels, kLabelManagedBy) != kManagedByValue) {
    return NotFound("no MCP session " + session.key);
  }
  if (!IsLabelValue(session.key) || name != McpSessionSecretName(session.key) ||
      !annotations.contains(kAnnotationTenant)) {
    return InvalidArgument("Secret " + name + " is no MCP session's record");
  }
  session.tenant = Text(annotations, kAnnotationTenant);
  // The label is what a selector finds: a Secret whose two disagree was changed by hand.
  const std::string label = Text(labels, kLabelTenant);
  if (label != (session.tenant.empty() ? "" : NameLabelValue(session.tenant))) {
    return InvalidArgument("Secret " + name + ": its " + std::string(kLabelTenant) +
                           " label is not its tenant's");
  }
  return session;
}

bool McpSessionAbandoned(const json& secret, const std::set<std::string>& keys_with_sandbox,
                         int64_t now) {
  const json meta = Member(secret, "metadata");
  const json labels = Member(meta, "labels");
  const std::string key = Text(labels, kLabelMcpSession);
  if (key.empty() || labels.contains(kLabelSandbox) ||
      Text(meta, "name") != McpSessionSecretName(key) || keys_with_sandbox.count(key) > 0) {
    return false;
  }
  auto made = ParseRfc3339(Text(meta, "creationTimestamp"));
  return made && now - WallClock::to_time_t(*made) >= kAbandonedMcpSessionSeconds;
}

}  // namespace agentbox::kubernetes
