// Backend: how a persistent sandbox is made, checked and destroyed.
//
// Everything that happens inside a sandbox (exec, files) goes through its agent's socket and is
// the same for every backend; a backend only owns the box around the agent. The conformance
// suite (tests/conformance) runs the same cases against every implementation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/sandbox_record.h"
#include "core/verify.h"
#include "proto/exec_result.h"

namespace agentbox {

// Counters of the box as a whole; an exec compares two readings to name the limits it hit.
struct ResourceSnapshot {
  uint64_t memory_bytes = 0;  // peak so far
  double cpu_ms = 0;
  uint64_t oom_kills = 0;
  uint64_t memory_events = 0;
  uint64_t pids_events = 0;
  uint64_t throttled_periods = 0;
  // The limits in force, as the kernel reports them (`inspect --verify` compares them with the
  // policy): bytes of memory and the process count. UINT64_MAX for no limit; 0 when the backend
  // cannot tell, which verify reports as a failed check.
  uint64_t memory_limit_bytes = 0;
  uint64_t pids_limit = 0;
  // The workspace against its disk limit, as the kernel's quota counts it (0 / false where
  // nothing holds the limit): what the sandbox has added over its life, and whether a write
  // there is refused now (proc/disk_quota.h AtDiskLimit).
  uint64_t disk_added_bytes = 0;
  bool disk_at_limit = false;
};

// One exec's egress (allow_hosts): a proxy listener of its own on the sandbox's loopback, and
// what went through it, taken once the exec is over.
class ExecEgress {
 public:
  virtual ~ExecEgress() = default;
  virtual uint16_t port() const = 0;
  virtual NetworkReport Finish() = 0;
};

// An MCP session of `agentbox serve` as every replica sharing a backend's sandboxes sees it
// (Backend::SharesMcpSessions): its key, a digest of the session id (mcp/session_key.h; never
// the id itself, which is a credential), and the tenant that began it.
struct SharedMcpSession {
  std::string key;
  std::string tenant;  // "" for the anonymous caller
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Makes the box and starts its agent. `record` arrives with id, name, spec, state_dir,
  // agent_socket and workspace filled in; the backend adds its own fields. On failure nothing
  // of the box is left behind.
  virtual Status Create(SandboxRecord& record) = 0;
  // True while the agent (the box's PID 1) runs.
  virtual bool IsAlive(const SandboxRecord& record) = 0;
  // Kills every process of the box and releases what the host holds for it (cgroups, mounts,
  // containers, the workspace's storage: a private workspace is deleted, a quota hold on a
  // directory the user gave released). Idempotent: a dead or half-made box is fine. Never
  // touches the data of a directory the user gave.
  virtual Status Destroy(const SandboxRecord& record) = 0;
  virtual StatusOr<ResourceSnapshot> Snapshot(const SandboxRecord& record) = 0;
  // Called when the agent's connection was lost during an exec: the command's result if the
  // whole box died under it and the backend can tell why (under gVisor the memory limit covers
  // the Sentry too, so an OOM kill takes the sandbox with it); nullopt otherwise, also when the
  // box is still alive.
  virtual std::optional<ExecResult> ExplainDeath(const SandboxRecord& record) {
    (void)record;
    return std::nullopt;
  }
  // For a sandbox with allow_hosts: the exec's listener, served by the sandbox's egress proxy.
  virtual StatusOr<std::unique_ptr<ExecEgress>> OpenExecEgress(const SandboxRecord& record) {
    (void)record;
    return Unavailable("this backend has no egress proxy");
  }
  // For a sandbox with allow_hosts used through this host: makes sure its egress proxy runs
  // here, starting one with the record's own policy when none does (kubernetes: a record
  // adopted from another state dir or replica, whose proxy, if any, is another host's, or one
  // whose proxy has ended), and filling record.egress_*. An error when none can start: the exec
  // is then refused, never run without the proxy. Nothing to do by default: elsewhere the proxy
  // lives and ends with the box itself.
  virtual Status ResumeEgress(SandboxRecord& record) {
    (void)record;
    return OkStatus();
  }
  // Checks of the box's walls that only the backend can make, appended to `inspect --verify`'s
  // probe (kubernetes: the sandbox's NetworkPolicy as the cluster holds it). None by default.
  virtual std::vector<VerifyCheck> VerifyChecks(const SandboxRecord& record) {
    (void)record;
    return {};
  }
  // Where this backend would make a sandbox of `spec`, as this host resolves it now, for the
  // warm pools' key (core/warm_pool.h): two specs alike but for it must not share a pool. ""
  // where the spec says it all (docker's daemon is the host's one).
  virtual StatusOr<std::string> PoolScope(const SandboxSpec& spec) {
    (void)spec;
    return std::string();
  }
  // The sandboxes this backend keeps beyond any state dir, each with its whole record but
  // state_dir (kubernetes: the cluster's pods of this agentbox's owner, which carry it; issue
  // 20's stateless serve replicas): what a lookup the state store cannot answer adopts, and what
  // `ls` shows beside the store's. None by default, and where nothing is configured to hold them.
  virtual StatusOr<std::vector<SandboxRecord>> Adoptable() { return std::vector<SandboxRecord>(); }
  // True when the backend knows the box of a record that does not answer is gone for good
  // (kubernetes: the API server has no such pod, or is deleting it), so the record is stale and is
  // dropped, not shown as dead. False when it cannot tell.
  virtual bool Gone(const SandboxRecord& record) {
    (void)record;
    return false;
  }
  // Whether serve's MCP sessions are kept here beyond one replica (kubernetes: in the cluster,
  // when $AGENTBOX_KUBE_OWNER names an owner the replicas share), so a session begun on one
  // replica goes on on another. False by default: a session is its replica's.
  virtual bool SharesMcpSessions() { return false; }
  // The session's record: saved once when it begins (kAlreadyExists when the key is taken),
  // looked up by key (kNotFound when none, also when it is another owner's), deleted when it
  // ends (gone already is fine). kUnavailable when the cluster cannot be asked.
  virtual Status SaveMcpSession(const SharedMcpSession& session) {
    (void)session;
    return Unavailable("this backend keeps no MCP sessions");
  }
  virtual StatusOr<SharedMcpSession> LoadMcpSession(const std::string& key) {
    return NotFound("no MCP session " + key);
  }
  virtual Status DeleteMcpSession(const std::string& key) {
    (void)key;
    return OkStatus();
  }
  // Removes what crashed runs and sandboxes left behind (cgroups, containers, private temp
  // workspaces) that belong to none of live_ids. Returns what it removed, one line each.
  virtual std::vector<std::string> CollectGarbage(const std::vector<std::string>& live_ids) = 0;
};

// One backend SandboxManager may use: its kind (a SandboxSpec's `backend`) and how to make it for
// the state dir `state_root`. The list of them is app's (app/backends.h): core includes no
// backend. A backend is made the first time a sandbox of it is used.
struct BackendMaker {
  BackendKind kind;
  std::function<std::unique_ptr<Backend>(const std::string& state_root)> make;
  bool adopts = false;  // may have Adoptable sandboxes: made for every lookup miss and `ls`
};
using BackendList = std::vector<BackendMaker>;

}  // namespace agentbox
