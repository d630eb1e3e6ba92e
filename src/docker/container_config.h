// The container a docker sandbox is: SandboxSpec -> Engine API ContainerCreate body.
//
// Pure, so every isolation setting is unit-tested. The same strict defaults as the native
// backend (docs/contract.md §2): no network, read-only root, /workspace the only writable path but
// capped tmpfs /tmp, private IPC/PID/UTS/cgroup namespaces, no capabilities, no_new_privs, our
// seccomp profile, memory without swap, pids, CPU and rlimits. The agent is the container's init.
#pragma once

#include <optional>
#include <string>

#include "spec/sandbox_spec.h"

namespace agentbox::docker {

// Where the agent lives inside every container.
inline constexpr const char* kAgentDir = "/.agentbox";
inline constexpr const char* kAgentPath = "/.agentbox/agentbox-agent";
inline constexpr const char* kAgentRunDir = "/.agentbox/run";
inline constexpr const char* kAgentSocketName = "agent.sock";

// Labels on everything agentbox creates, so `gc` finds orphans and nothing else.
inline constexpr const char* kLabelManaged = "io.agentbox.managed";
inline constexpr const char* kLabelId = "io.agentbox.id";
inline constexpr const char* kLabelStateDir = "io.agentbox.state-dir";

struct ContainerInputs {
  std::string id;               // sandbox id
  std::string state_root;       // the state dir that owns it (labels; gc is per state dir)
  std::string agent_host_path;  // static agent binary on the host
  std::string run_host_dir;     // host dir of the agent's socket
  std::string workspace_host_path;
  std::string seccomp_profile_json;
  std::string user;  // docker/host_ids.h ContainerIds::user
  // The workspace's disk limit is held by the kernel: the agent reports refused allocations.
  bool disk_watch = false;
  std::optional<double> clock_start;  // the agent's --clock-start (policy clock_start)
  // gVisor with allow_hosts: the agent runs the egress relay (agent/egress_relay.h).
  bool egress_relay = false;
  // A host file bound read-only over the container's /etc/resolv.conf: it names the agent's DNS
  // catcher (proc/dns_catcher.h). Docker's own under NetworkMode none is empty, and a resolver
  // with no server named tries its default, unbound. "": Docker's own.
  std::string resolv_conf_host_path;
};

// The JSON body of POST /containers/create.
std::string ContainerCreateBody(const SandboxSpec& spec, const ContainerInputs& in);

// "agentbox-<id>": container names are how a record finds its container.
std::string ContainerName(const std::string& id);

}  // namespace agentbox::docker
