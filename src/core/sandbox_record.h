// SandboxRecord: what agentbox remembers about one persistent sandbox (its sandbox.json).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>

#include "base/status.h"
#include "core/agent_endpoint.h"
#include "spec/sandbox_spec.h"
#include "spec/workspace_quota.h"

namespace agentbox {

struct SandboxRecord {
  std::string id;    // 12 hex digits, unique
  std::string name;  // unique when set; "" for none
  BackendKind backend = BackendKind::kNative;
  std::string created_at;            // RFC 3339, UTC
  int64_t expires_at = 0;            // unix seconds the sandbox's ttl ends; 0: no ttl
  SandboxSpec spec;                  // the effective policy
  std::string workspace;             // host path behind /workspace
  bool workspace_temporary = false;  // ours: removed with the sandbox; else the user's: kept
  WorkspaceQuota disk_quota;         // what holds the disk limit (a pool volume, a hold)
  // A fork (`agentbox fork`): the snapshot it was made from, and its volume in the pool, which
  // the backend's Create makes the new workspace from.
  std::string forked_from;
  std::string workspace_source;
  // The workspace digest's cache to start from while the sandbox has none of its own (a fork:
  // its snapshot's, whose files it shares inode for inode): proc/workspace_digest.h.
  std::string digest_seed;
  std::string state_dir;  // <state root>/sandboxes/<id>
  // Where the agent listens: a unix socket path, or "tcp:HOST:PORT" (kubernetes, the pod's IP)
  // with agent_token, the sandbox's own secret for the agent's handshake (proto/agent_hello.h).
  // The record file is 0600 (core/state_store.cc): the token never leaves it but to the agent.
  std::string agent_socket;
  std::string agent_token;
  AgentEndpoint agent() const { return {agent_socket, agent_token}; }

  // native: the sandbox's PID 1 (the agent) and the cgroup holding it.
  pid_t init_pid = 0;
  uint64_t init_start_time = 0;  // /proc/PID/stat field 22: tells a reused pid apart
  std::string cgroup;

  // Both: the directories of the cgroup holding the sandbox (proc/cgroup.h CgroupLocation),
  // resolved at create; empty in records written before agentbox kept it.
  std::map<std::string, std::string> cgroup_location;

  // native --image: the image (its id, the config's digest) the root is made of; `image rm`
  // refuses it while the sandbox runs.
  std::string image_id;
  // Both, with allow_hosts: the egress proxy (egress/proxy.h), a host process of its own that
  // ends with the sandbox's PID 1 and is killed by Destroy.
  pid_t egress_pid = 0;
  uint64_t egress_start_time = 0;
  std::string egress_socket;  // its control socket, <state_dir>/egress.sock
  // docker under gVisor: the sandbox's egress relay socket (agent/egress_relay.h), through which
  // the proxy serves it instead of listening in its network; "" elsewhere.
  std::string egress_relay;
  // The proxy's port in the sandbox for its background processes (exec -d); 0: none.
  uint16_t egress_background_port = 0;

  // docker: the container.
  std::string container_id;

  // kubernetes: the sandbox's pod (its agent at agent_socket "tcp:POD_IP:7070", with
  // agent_token), in spec.kube's namespace (resolved at create) on the cluster spec.kube names.
  std::string kube_pod;
  // kubernetes through agent-sandbox (AGENTBOX_KUBE_SANDBOX_CLAIMS): the sandbox's SandboxClaim,
  // whose controller made (or took from a warm pool) kube_pod; rm deletes the claim. "": a pod
  // agentbox made itself.
  std::string kube_claim;
  // Not made through this state dir but adopted from where the backend keeps its sandboxes
  // (Backend::Adoptable: another serve replica's, or this one's before a restart). Its idle
  // timeout is not counted here: its uses through others are not seen.
  bool adopted = false;

  // Made by `agentbox serve` for a tenant (http/tenants.h): the tenant and its name for the
  // sandbox (a tenant's names are its own, apart from `name`); "" for none. The kubernetes
  // backend writes them on the sandbox's objects, so every serve replica knows whose it is.
  std::string tenant;
  std::string tenant_name;
  // The sandbox of an MCP session of serve whose session the replicas share (Backend's
  // SharesMcpSessions): the session's key (mcp/session_key.h, a digest: never the session id,
  // which is a credential), so any replica finds the session's sandbox. "" for none.
  std::string mcp_session;

  // Non-empty while the sandbox waits, started, in a warm pool (core/warm_pool.h): hidden from
  // ls and from lookups until a create claims it.
  std::string pool_key;
};

// The tenant of `agentbox serve` a sandbox is made for (SandboxRecord's tenant, tenant_name).
struct SandboxTenant {
  std::string tenant;       // "" for none
  std::string name;         // the tenant's name for the sandbox; "" for none
  std::string mcp_session;  // SandboxRecord's mcp_session; "" for none
};

// When a sandbox made at `now` with `spec` expires (0: never), and whether `record` has.
int64_t ExpiryOf(const SandboxSpec& spec, int64_t now);
bool HasExpired(const SandboxRecord& record, int64_t now);

std::string SandboxRecordToJson(const SandboxRecord& record);
StatusOr<SandboxRecord> SandboxRecordFromJson(const std::string& json);

// "2026-11-29T18:03:42Z"
std::string NowRfc3339();
std::string Rfc3339(int64_t unix_seconds);

}  // namespace agentbox
