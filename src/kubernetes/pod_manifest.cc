#include "kubernetes/pod_manifest.h"

#include <cmath>
#include <string>

#include "kubernetes/object_names.h"
#include "kubernetes/pod_record.h"
#include "policy/sandbox_env.h"

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

constexpr const char* kSandboxContainer = "sandbox";
constexpr const char* kInstallContainer = "agent-install";

json SeccompProfile(const ManifestInputs& in) {
  if (in.seccomp_localhost_profile.empty()) return {{"type", "RuntimeDefault"}};
  return {{"type", "Localhost"}, {"localhostProfile", in.seccomp_localhost_profile}};
}

// The annotation form of the same profile: runtimes that ignore the field (podman kube play)
// read it, and the field wins wherever both are understood.
std::string SeccompAnnotation(const ManifestInputs& in) {
  if (in.seccomp_localhost_profile.empty()) return "runtime/default";
  return "localhost/" + in.seccomp_localhost_profile;
}

json ContainerSecurity(const SandboxSpec& spec, const ManifestInputs& in) {
  return {
      {"runAsNonRoot", true},
      {"runAsUser", spec.user.uid},
      {"runAsGroup", spec.user.gid},
      {"readOnlyRootFilesystem", true},
      {"allowPrivilegeEscalation", false},
      {"privileged", false},
      {"capabilities", {{"drop", {"ALL"}}}},
      {"seccompProfile", SeccompProfile(in)},
  };
}

// Requests equal to limits: the pod is Guaranteed, never scheduled on memory it may not get.
json Resources(const Limits& limits) {
  json amounts = {
      {"memory", std::to_string(limits.memory_bytes)},
      {"cpu", std::to_string(std::llround(limits.cpus * 1000)) + "m"},
  };
  return {{"requests", amounts}, {"limits", amounts}};
}

json EmptyDir(const std::string& name, uint64_t size, bool in_memory) {
  json dir = json::object();
  if (in_memory) dir["medium"] = "Memory";
  if (size != kNoDiskLimit) dir["sizeLimit"] = std::to_string(size);
  return {{"name", name}, {"emptyDir", dir}};
}

json Volumes(const SandboxSpec& spec, const ManifestInputs& in) {
  json token = {{"secretName", SecretName(in.id)},
                {"defaultMode", 0440},
                {"items", {{{"key", kAgentTokenKey}, {"path", kAgentTokenKey}}}}};
  json volumes = {
      EmptyDir("agent", 64 * kMiB, false),
      EmptyDir("workspace", spec.limits.disk_bytes, false),
      EmptyDir("tmp", spec.tmp_bytes, true),
      EmptyDir("shm", spec.shm_bytes, true),
  };
  // A shared template's pod has no Secret of its own: its token comes with its claim.
  if (!in.token_by_claim) volumes.push_back({{"name", "agent-token"}, {"secret", token}});
  return volumes;
}

json Mount(const char* name, const char* path, bool read_only) {
  return {{"name", name}, {"mountPath", path}, {"readOnly", read_only}};
}

json InstallContainer(const SandboxSpec& spec, const ManifestInputs& in) {
  return {
      {"name", kInstallContainer},
      {"image", in.agent_image},
      {"imagePullPolicy", "IfNotPresent"},
      {"command", {kAgentImageCopy, kAgentImagePath, kAgentPath}},
      {"securityContext", ContainerSecurity(spec, in)},
      {"resources", Resources(spec.limits)},
      {"volumeMounts", {Mount("agent", kAgentDir, false)}},
  };
}

json SandboxContainer(const SandboxSpec& spec, const ManifestInputs& in) {
  // The agent's own environment; each command's comes with its exec request.
  json env = json::array();
  for (const std::string& kv : BuildSandboxEnvironment({})) {
    size_t eq = kv.find('=');
    env.push_back({{"name", kv.substr(0, eq)}, {"value", kv.substr(eq + 1)}});
  }
  json mounts = {Mount("agent", kAgentDir, true)};
  if (!in.token_by_claim) mounts.push_back(Mount("agent-token", kAgentTokenDir, true));
  for (json m : {Mount("workspace", kWorkspaceDir, false), Mount("tmp", "/tmp", false),
                 Mount("shm", "/dev/shm", false)}) {
    mounts.push_back(std::move(m));
  }
  return {
      {"name", kSandboxContainer},
      {"image", spec.image},
      {"imagePullPolicy", spec.no_pull ? "Never" : "IfNotPresent"},
      {"command", {kAgentPath}},
      {"args", in.agent_args},
      {"env", env},
      {"workingDir", kWorkspaceDir},
      {"ports", {{{"name", "agent"}, {"containerPort", kAgentPort}, {"protocol", "TCP"}}}},
      {"securityContext", ContainerSecurity(spec, in)},
      {"resources", Resources(spec.limits)},
      {"volumeMounts", mounts},
  };
}

json PodSecurity(const SandboxSpec& spec, const ManifestInputs& in) {
  return {
      {"runAsNonRoot", true},
      {"runAsUser", spec.user.uid},
      {"runAsGroup", spec.user.gid},
      {"fsGroup", spec.user.gid},  // the token file and the emptyDirs are the agent's group's
      {"seccompProfile", SeccompProfile(in)},
  };
}

}  // namespace

StatusOr<json> PodManifest(const SandboxSpec& spec, const ManifestInputs& in) {
  AB_RETURN_IF_ERROR(CheckSandboxId(in.id));
  if (in.agent_image.empty()) return InvalidArgument("no agent image for the sandbox's pod");
  json meta = SandboxMetadata(PodName(in.id), in);
  meta["annotations"] = RecordAnnotations(spec, in.identity);
  meta["annotations"]["seccomp.security.alpha.kubernetes.io/pod"] = SeccompAnnotation(in);
  json pod_spec = {
      {"restartPolicy", "Never"},
      {"automountServiceAccountToken", false},
      {"enableServiceLinks", false},  // no environment naming the cluster's services
      {"hostNetwork", false},
      {"hostPID", false},
      {"hostIPC", false},
      {"shareProcessNamespace", false},
      {"hostname", kSandboxHostname},
      // The agent's DNS catcher on the pod's loopback is its only resolver, as on native.
      {"dnsPolicy", "None"},
      {"dnsConfig", {{"nameservers", {"127.0.0.1"}}}},
      {"terminationGracePeriodSeconds", 2},
      {"securityContext", PodSecurity(spec, in)},
      {"initContainers", {InstallContainer(spec, in)}},
      {"containers", {SandboxContainer(spec, in)}},
      {"volumes", Volumes(spec, in)},
  };
  if (spec.ttl_seconds > 0) {
    pod_spec["activeDeadlineSeconds"] = static_cast<int64_t>(std::ceil(spec.ttl_seconds));
  }
  if (!in.runtime_class_name.empty()) pod_spec["runtimeClassName"] = in.runtime_class_name;
  return json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", pod_spec}};
}

}  // namespace agentbox::kubernetes
