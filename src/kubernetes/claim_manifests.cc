#include "kubernetes/claim_manifests.h"

#include <ctime>

#include "base/sha256.h"
#include "kubernetes/object_names.h"
#include "kubernetes/pod_manifest.h"
#include "kubernetes/pod_record.h"
#include "kubernetes/sandbox_objects.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

// RFC 3339 in UTC, as metav1.Time is written.
std::string Rfc3339Utc(int64_t unix_seconds) {
  const time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm = {};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

json TemplateLabels(const ManifestInputs& in, const std::string& name) {
  json labels = {{kLabelManagedBy, kManagedByValue}};
  if (!in.owner.empty()) labels[kLabelOwner] = in.owner;
  if (!name.empty()) labels[kLabelTemplate] = name;
  return labels;
}

}  // namespace

StatusOr<json> SandboxTemplateManifest(const SandboxSpec& spec, ManifestInputs in) {
  in.token_by_claim = true;
  in.agent_args = AgentArgs(spec, /*token_by_claim=*/true);  // never a token file: none is mounted
  in.identity = {};
  AB_ASSIGN_OR_RETURN(json pod, PodManifest(spec, in));
  json pod_spec = pod["spec"];
  pod_spec.erase("activeDeadlineSeconds");
  json annotations = json::object();
  for (const auto& [key, value] : pod["metadata"]["annotations"].items()) {
    if (key.rfind("seccomp.", 0) == 0) annotations[key] = value;  // not the record's
  }
  json policy = {{"ingress", {AgentIngressRule(in)}}, {"egress", json::array()}};
  // The name is the content's: every input of the shape (image, limits, user, args, owner,
  // serve's namespace) is in what is hashed, so two shapes never share a template.
  const std::string digest = Sha256Of(pod_spec.dump() + "\n" + annotations.dump() + "\n" +
                                      policy.dump() + "\n" + in.owner);
  const std::string name = "agentbox-t-" + digest.substr(7, 20);
  json pod_template = {
      {"metadata", {{"labels", TemplateLabels(in, name)}, {"annotations", annotations}}},
      {"spec", pod_spec}};
  return json{{"apiVersion", kAgentSandboxGroupVersion},
              {"kind", "SandboxTemplate"},
              {"metadata", {{"name", name}, {"labels", TemplateLabels(in, name)}}},
              {"spec", {{"podTemplate", pod_template}, {"networkPolicy", policy}}}};
}

json TemplateNetworkPolicy(const ManifestInputs& in, const std::string& template_name) {
  json spec = {
      {"podSelector", {{"matchLabels", {{kLabelTemplate, template_name}}}}},
      {"policyTypes", {"Ingress", "Egress"}},
      {"ingress", {AgentIngressRule(in)}},
      {"egress", json::array()},  // governed and empty: no egress at all
  };
  return json{
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "NetworkPolicy"},
      {"metadata", {{"name", template_name}, {"labels", TemplateLabels(in, template_name)}}},
      {"spec", spec}};
}

StatusOr<json> SandboxClaimManifest(const SandboxSpec& spec, const ManifestInputs& in,
                                    const std::string& template_name) {
  AB_RETURN_IF_ERROR(CheckSandboxId(in.id));
  json meta = SandboxMetadata(PodName(in.id), in);
  meta["annotations"] = RecordAnnotations(spec, in.identity);
  json claim_spec = {{"sandboxTemplateRef", {{"name", template_name}}}, {"warmpool", "default"}};
  if (in.identity.expires_at > 0) {
    claim_spec["lifecycle"] = {{"shutdownTime", Rfc3339Utc(in.identity.expires_at)},
                               {"shutdownPolicy", "Delete"}};
  }
  return json{{"apiVersion", kAgentSandboxGroupVersion},
              {"kind", "SandboxClaim"},
              {"metadata", meta},
              {"spec", claim_spec}};
}

ClaimBinding ReadClaimBinding(const json& claim) {
  ClaimBinding out;
  const json status = claim.value("status", json::object());
  const json sandbox = status.value("sandbox", json::object());
  out.sandbox_name = sandbox.value("name", "");
  for (const json& ip : sandbox.value("podIPs", json::array())) {
    if (ip.is_string() && !ip.get<std::string>().empty())
      out.pod_ips.push_back(ip.get<std::string>());
  }
  for (const json& c : status.value("conditions", json::array())) {
    if (!c.is_object() || c.value("type", "") != "Ready") continue;
    out.ready = c.value("status", "") == "True";
    if (!out.ready) {
      out.detail = "Ready " + c.value("status", "") + ": " + c.value("reason", "") +
                   (c.value("message", "").empty() ? "" : ": " + c.value("message", ""));
    }
  }
  if (out.detail.empty() && !out.ready) out.detail = "no Ready condition yet";
  return out;
}

std::string MissingClaimResources(const json& resource_list) {
  bool claims = false, templates = false;
  for (const json& r : resource_list.value("resources", json::array())) {
    const std::string name = r.is_object() ? r.value("name", "") : "";
    claims = claims || name == kSandboxClaims.plural;
    templates = templates || name == kSandboxTemplates.plural;
  }
  if (claims && templates) return "";
  if (!claims && !templates) return "sandboxclaims and sandboxtemplates";
  return claims ? "sandboxtemplates" : "sandboxclaims";
}

}  // namespace agentbox::kubernetes
