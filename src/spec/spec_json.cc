#include "spec/spec_json.h"

#include "spec/policy_file.h"
#include "spec/spec_overlay.h"

namespace agentbox {

nlohmann::json SpecToPolicyJson(const SandboxSpec& spec) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [key, value] : spec.env) env[key] = value;
  nlohmann::json j = {
      {"backend", BackendName(spec.backend)},
      {"timeout", spec.limits.timeout_seconds},
      {"memory", spec.limits.memory_bytes},
      {"pids", spec.limits.pids},
      {"cpus", spec.limits.cpus},
      {"output_limit", spec.limits.output_bytes},
      {"disk_limit", spec.limits.disk_bytes == kNoDiskLimit
                         ? nlohmann::json("none")
                         : nlohmann::json(spec.limits.disk_bytes)},
      {"env", env},
      {"cwd", spec.cwd},
      {"stdin", spec.pass_stdin},
      {"tmp_size", spec.tmp_bytes},
      {"shm_size", spec.shm_bytes},
      {"open_files", spec.open_files},
      {"ttl", spec.ttl_seconds == 0 ? nlohmann::json("none") : nlohmann::json(spec.ttl_seconds)},
      {"idle_timeout", spec.idle_timeout_seconds == 0 ? nlohmann::json("none")
                                                      : nlohmann::json(spec.idle_timeout_seconds)},
      {"allow_hosts", spec.allow_hosts},
      {"egress_connections", spec.limits.egress_connections},
      {"egress_bytes", spec.limits.egress_bytes},
      {"session_log", spec.session_log},
      {"max_snapshots", spec.max_snapshots}};
  if (spec.workspace) j["workspace"] = *spec.workspace;
  if (spec.rootfs) j["rootfs"] = *spec.rootfs;
  // native uses an image only when one was asked for; docker always has one.
  if (spec.image_given || spec.backend == BackendKind::kDocker) j["image"] = spec.image;
  if (!spec.runtime.empty()) j["runtime"] = spec.runtime;
  if (spec.clock_start_seconds) j["clock_start"] = *spec.clock_start_seconds;
  if (spec.random_seed) j["random_seed"] = *spec.random_seed;
  return j;
}

StatusOr<SandboxSpec> SpecFromPolicyJson(const nlohmann::json& policy) {
  AB_ASSIGN_OR_RETURN(SpecOverlay overlay, ParsePolicyJson(policy.dump(), "stored policy"));
  SandboxSpec spec;
  ApplyOverlay(overlay, &spec);
  return spec;
}

}  // namespace agentbox
