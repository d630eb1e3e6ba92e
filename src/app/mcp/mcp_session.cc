#include "app/mcp/mcp_session.h"

#include <vector>

#include "app/backends.h"
#include "app/self_exec.h"
#include "core/sandbox_activity.h"

namespace agentbox {

StatusOr<std::string> CreateSandboxInHelper(const std::string& binary,
                                            const std::string& policy_path) {
  std::vector<std::string> args;
  if (!policy_path.empty()) args = {"--policy", policy_path};
  auto id = RunCreateHelper(binary, args);
  if (!id.ok()) {
    return Status(id.status().code(),
                  "cannot create the session's sandbox: " + id.status().message());
  }
  return id;
}

McpSession::~McpSession() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (owned_ && record_ && manager_) RemoveOwnSandbox(record_->id);
}

void McpSession::RemoveOwnSandbox(const std::string& id) {
  (void)manager_->Remove(id, /*force=*/true);
  if (options_.quota) options_.quota->SandboxRemoved(id);
}

// A fresh sandbox, in a slot of the quota: a session over its tenant's max_sandboxes gets the
// quota's reason, which the tool call reports as its error.
StatusOr<std::string> McpSession::CreateOwnSandbox() {
  McpQuota* quota = options_.quota.get();
  if (quota) {
    Status slot = quota->ReserveSandbox();
    if (!slot.ok()) {
      return Status(slot.code(), "cannot create the session's sandbox: " + slot.message());
    }
  }
  const std::string binary =
      options_.agentbox_binary.empty() ? "/proc/self/exe" : options_.agentbox_binary;
  StatusOr<std::string> id = Internal("not created");
  if (options_.create_sandbox) {
    id = options_.create_sandbox();
    if (!id.ok()) {
      id = Status(id.status().code(),
                  "cannot create the session's sandbox: " + id.status().message());
    }
  } else {
    id = CreateSandboxInHelper(binary, options_.policy_path);
  }
  if (!quota) return id;
  if (!id.ok()) {
    quota->SandboxNotCreated();
    return id;
  }
  if (Status recorded = quota->SandboxCreated(*id); !recorded.ok()) {
    // A sandbox its tenant does not own would be invisible to it and count against nothing.
    RemoveOwnSandbox(*id);
    return recorded;
  }
  return id;
}

StatusOr<SandboxRecord> McpSession::Sandbox() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!record_) AB_RETURN_IF_ERROR(Acquire());
  MarkActive(*record_);  // every tool call is a use (the idle timeout)
  return *record_;
}

std::string McpSession::sandbox_id() {
  std::lock_guard<std::mutex> lock(mutex_);
  return record_ ? record_->id : "";
}

void McpSession::Detach() {
  std::lock_guard<std::mutex> lock(mutex_);
  owned_ = false;
  detached_ = true;  // and a tool call still to come makes none that nobody would remove
}

uint64_t McpSession::OutputCursor(const std::string& proc) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = output_cursors_.find(proc);
  return it == output_cursors_.end() ? 0 : it->second;
}

void McpSession::AdvanceOutputCursor(const std::string& proc, uint64_t next) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t& cursor = output_cursors_[proc];
  if (next > cursor) cursor = next;
}

Status McpSession::Acquire() {
  if (!manager_) {
    AB_ASSIGN_OR_RETURN(SandboxManager manager, OpenSandboxManager());
    manager_.emplace(std::move(manager));
  }
  if (detached_) return Unavailable("this MCP session goes on elsewhere; retry the request");
  std::string ref = options_.sandbox;
  bool create = ref.empty();
  bool own = create;
  if (create && options_.find_own_sandbox) {
    // Made for this session through another replica: the session's, so removed with it.
    AB_ASSIGN_OR_RETURN(ref, options_.find_own_sandbox(*manager_));
    create = ref.empty();
  }
  if (create) {
    AB_ASSIGN_OR_RETURN(ref, CreateOwnSandbox());
  }
  auto found = manager_->Find(ref);
  if (!found.ok()) {
    if (create) RemoveOwnSandbox(ref);
    return found.status();
  }
  if (found->state != SandboxState::kRunning) {
    if (create) RemoveOwnSandbox(ref);
    return Unavailable("sandbox " + ref + " is not running");
  }
  // Backends cache host facts lazily (the native one its cgroup layout) without a lock; one
  // reading here, under our mutex, fills those caches before tool calls run Exec in parallel.
  (void)manager_->InspectJson(found->record.id);
  record_ = found->record;
  owned_ = own;
  return OkStatus();
}

}  // namespace agentbox
