// McpSession: the one sandbox an MCP session works in.
//
// Made lazily on the first tool call, by running `agentbox create` as a helper process: the MCP
// server is multithreaded, and a multithreaded process must never clone itself into a sandbox
// (docs/architecture.md); the helper is single-threaded and prints the new id. A named sandbox from
// the options is used as it is and never removed. The sandbox it creates takes a slot of the
// options' quota (a tenant's max_sandboxes under `agentbox serve`) until it is removed.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "app/mcp/mcp_server.h"
#include "base/status.h"
#include "core/sandbox_manager.h"

namespace agentbox {

class McpSession {
 public:
  explicit McpSession(McpOptions options) : options_(std::move(options)) {}
  ~McpSession();  // removes the sandbox this session created
  McpSession(const McpSession&) = delete;
  McpSession& operator=(const McpSession&) = delete;

  // The session's sandbox, created or found on first use. Thread-safe; a failure is returned
  // to this caller and retried by the next one.
  StatusOr<SandboxRecord> Sandbox();

  // Valid once Sandbox() succeeded. Its backends are loaded by then, so concurrent Exec calls
  // only read the manager.
  SandboxManager& manager() { return *manager_; }

  // What the session's commands count against; nullptr: nothing.
  McpQuota* quota() const { return options_.quota.get(); }
  // The most a tool call's timeout may ask.
  double max_timeout_seconds() const { return options_.max_timeout_seconds; }
  uint64_t max_output_limit() const { return options_.max_output_limit; }
  size_t bash_output_chars() const { return options_.bash_output_chars; }
  const McpOptions& options() const { return options_; }
  // The sandbox's id once Sandbox() succeeded; "" before. Thread-safe.
  std::string sandbox_id();
  // The session goes on elsewhere: its sandbox is no longer removed with this object.
  void Detach();

  // Where this session's next process_output of background process `proc` starts: the offset
  // after what it returned last (0 before). Thread-safe. A sandbox keeps at most 32 processes, and
  // reuses no id, so the map stays small; an entry of a process that is gone is harmless.
  uint64_t OutputCursor(const std::string& proc);
  // Moves it forward only: two reads at once must not take the cursor back.
  void AdvanceOutputCursor(const std::string& proc, uint64_t next);

 private:
  Status Acquire();
  StatusOr<std::string> CreateOwnSandbox();
  void RemoveOwnSandbox(const std::string& id);

  McpOptions options_;
  std::mutex mutex_;
  std::optional<SandboxManager> manager_;
  std::optional<SandboxRecord> record_;
  bool owned_ = false;     // made by us (or for the session elsewhere): removed with it
  bool detached_ = false;  // Detach ran: the session is another's now
  std::map<std::string, uint64_t> output_cursors_;  // guarded by mutex_
};

// Runs `binary create [--policy FILE]` and returns the id it prints, or its error line.
StatusOr<std::string> CreateSandboxInHelper(const std::string& binary,
                                            const std::string& policy_path);

}  // namespace agentbox
