#include "docker/container_config.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "policy/image_user.h"
#include "policy/sandbox_env.h"
#include "proto/agent_protocol.h"

namespace agentbox::docker {
namespace {

std::vector<std::string> AgentArgs(const SandboxSpec& spec, const ContainerInputs& in) {
  std::vector<std::string> args;
  if (in.disk_watch) args.push_back(kAgentDiskWatchFlag);
  if (spec.user != SandboxUser{}) {  // an image's user: the agent maps to it, not to 1000
    args.push_back(kAgentUserFlag);
    args.push_back(SandboxUserText(spec.user));
  }
  if (spec.random_seed) {
    args.push_back(kAgentRandomSeedFlag);
    args.push_back(std::to_string(*spec.random_seed));
  }
  if (in.clock_start) {
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%.9g", *in.clock_start);
    args.insert(args.end(), {kAgentClockStartFlag, seconds});
  }
  args.push_back("--listen");
  args.push_back(std::string(kAgentRunDir) + "/" + kAgentSocketName);
  if (in.egress_relay) {
    args.push_back(kAgentEgressRelayFlag);
    args.push_back(std::string(kAgentRunDir) + "/" + kEgressRelaySocketName);
  }
  return args;
}

}  // namespace

std::string ContainerName(const std::string& id) { return "agentbox-" + id; }

std::string ContainerCreateBody(const SandboxSpec& spec, const ContainerInputs& in) {
  using nlohmann::json;
  const Limits& limits = spec.limits;
  auto memory = static_cast<int64_t>(limits.memory_bytes);
  json tmpfs = {{"/tmp", "rw,nosuid,nodev,size=" + std::to_string(spec.tmp_bytes) + ",mode=1777"}};
  json ulimits = json::array({
      {{"Name", "nofile"}, {"Soft", spec.open_files}, {"Hard", spec.open_files}},
      // A core dump would land in /workspace past the disk limit.
      {{"Name", "core"}, {"Soft", 0}, {"Hard", 0}},
  });
  json host_config = {
      {"NetworkMode", "none"},
      {"ReadonlyRootfs", true},
      {"Binds",
       {in.agent_host_path + ":" + kAgentPath + ":ro", in.run_host_dir + ":" + kAgentRunDir,
        in.workspace_host_path + ":" + kWorkspaceDir}},
      {"Tmpfs", tmpfs},
      {"ShmSize", spec.shm_bytes},
      {"IpcMode", "private"},
      {"PidMode", ""},  // a private PID namespace (the default, spelled out)
      {"UTSMode", ""},
      {"CgroupnsMode", "private"},
      {"CapDrop", {"ALL"}},
      {"SecurityOpt", {"no-new-privileges", "seccomp=" + in.seccomp_profile_json}},
      {"PidsLimit", limits.pids},
      {"Memory", memory},
      {"MemorySwap", memory},  // equal to Memory: no swap
      {"NanoCpus", static_cast<int64_t>(std::llround(limits.cpus * 1e9))},
      {"Ulimits", ulimits},
      {"Init", false},  // the agent is PID 1
      {"Privileged", false},
      {"RestartPolicy", {{"Name", "no"}}},
      {"LogConfig", {{"Type", "none"}, {"Config", json::object()}}},
  };
  if (!in.resolv_conf_host_path.empty()) {
    host_config["Binds"].push_back(in.resolv_conf_host_path + ":/etc/resolv.conf:ro");
  }
  if (!spec.runtime.empty()) host_config["Runtime"] = spec.runtime;
  // The agent's own environment; each command's is built from the exec request, so sandboxes
  // that differ only in env share a warm pool.
  json env = json::array();
  for (const std::string& kv : BuildSandboxEnvironment({})) env.push_back(kv);
  json body = {
      {"Image", spec.image},
      {"Entrypoint", {kAgentPath}},
      {"Cmd", AgentArgs(spec, in)},
      {"User", in.user},
      {"Env", env},
      {"WorkingDir", kWorkspaceDir},
      {"Hostname", kSandboxHostname},
      {"NetworkDisabled", true},
      {"AttachStdin", false},
      {"AttachStdout", false},
      {"AttachStderr", false},
      {"Tty", false},
      {"OpenStdin", false},
      {"Labels", {{kLabelManaged, "1"}, {kLabelId, in.id}, {kLabelStateDir, in.state_root}}},
      {"HostConfig", host_config},
  };
  return body.dump();
}

}  // namespace agentbox::docker
