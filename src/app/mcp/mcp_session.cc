#include "app/mcp/mcp_session.h"

#include <vector>

#include "app/create_helper.h"

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
  if (owned_ && record_ && manager_) (void)manager_->Remove(record_->id, /*force=*/true);
}

StatusOr<SandboxRecord> McpSession::Sandbox() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!record_) AB_RETURN_IF_ERROR(Acquire());
  return *record_;
}

Status McpSession::Acquire() {
  if (!manager_) {
    AB_ASSIGN_OR_RETURN(SandboxManager manager, SandboxManager::Open());
    manager_.emplace(std::move(manager));
  }
  std::string ref = options_.sandbox;
  const bool create = ref.empty();
  if (create) {
    const std::string binary =
        options_.agentbox_binary.empty() ? "/proc/self/exe" : options_.agentbox_binary;
    AB_ASSIGN_OR_RETURN(ref, CreateSandboxInHelper(binary, options_.policy_path));
  }
  auto found = manager_->Find(ref);
  if (!found.ok()) {
    if (create) (void)manager_->Remove(ref, /*force=*/true);
    return found.status();
  }
  if (found->state != SandboxState::kRunning) {
    if (create) (void)manager_->Remove(ref, /*force=*/true);
    return Unavailable("sandbox " + ref + " is not running");
  }
  // Backends cache host facts lazily (the native one its cgroup layout) without a lock; one
  // reading here, under our mutex, fills those caches before tool calls run Exec in parallel.
  (void)manager_->InspectJson(found->record.id);
  record_ = found->record;
  owned_ = create;
  return OkStatus();
}

}  // namespace agentbox
