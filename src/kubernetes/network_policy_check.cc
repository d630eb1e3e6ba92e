#include "kubernetes/network_policy_check.h"

#include "kubernetes/sandbox_objects.h"

namespace agentbox::kubernetes {

VerifyCheck NetworkPolicyCheck(const ManifestInputs& in, const StatusOr<nlohmann::json>& live,
                               const nlohmann::json* given) {
  VerifyCheck check{"network_policy", "ingress only TCP 7070 from serve, no egress", "", false, ""};
  if (!live.ok()) {
    check.got = live.status().code() == StatusCode::kNotFound
                    ? "absent"
                    : "unreadable: " + live.status().message();
    return check;
  }
  auto want = given ? StatusOr<nlohmann::json>(*given) : SandboxNetworkPolicy(in);
  if (!want.ok()) {
    check.got = "unknown: " + want.status().message();
    return check;
  }
  nlohmann::json spec = live->value("spec", nlohmann::json::object());
  if (!spec.contains("egress")) spec["egress"] = nlohmann::json::array();  // omitempty
  check.ok = spec == (*want)["spec"];
  check.got = check.ok ? "as agentbox made it" : "changed: " + spec.dump();
  return check;
}

}  // namespace agentbox::kubernetes
