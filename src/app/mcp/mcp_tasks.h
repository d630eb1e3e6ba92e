// McpTasks: the tasks of one McpServer, after the io.modelcontextprotocol/tasks extension of MCP
// 2026-07-28 (SEP-2663): a tools/call the server answers with a task handle instead of its
// result, which the client then polls with tasks/get and may end with tasks/cancel.
//
// Two kinds of work become tasks:
// - a command (bash, exec) still running after kGrace: it goes on on a thread of its own, with
//   the cancellation tasks/cancel fires (the agent kills its process tree), and its
//   CallToolResult is kept when it ends;
// - a background process (bash or exec with `background: true`): the task follows the process
//   in the sandbox's keeper, asking it on each tasks/get; tasks/cancel kills it.
//
// Bounded: at most kMaxTasks per server; a new one evicts the oldest finished one, and when every
// one is still working no task is made (the call answers as without the extension). A finished
// task is kept kRetention, then forgotten (tasks/get: -32602). Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/agent_exec.h"

namespace agentbox {

class McpTasks {
 public:
  static constexpr size_t kMaxTasks = 64;
  static constexpr std::chrono::milliseconds kGrace{1000};
  static constexpr std::chrono::hours kRetention{1};
  static constexpr int kPollIntervalMs = 1000;

  McpTasks() = default;
  ~McpTasks();  // cancels what runs and waits for its threads
  McpTasks(const McpTasks&) = delete;
  McpTasks& operator=(const McpTasks&) = delete;

  // Runs `work` (a tool call, given the task's cancellation) on a thread. Returns its
  // CallToolResult when it finishes within kGrace (`request`, the call's own cancellation, still
  // stops it until then), else the CreateTaskResult of the task it became; nullopt, without
  // running it, when there is no room for a task.
  std::optional<nlohmann::json> RunOrNull(std::function<nlohmann::json(ExecCancellation*)> work,
                                          ExecCancellation* request);

  // A task following a background process: `poll` returns nullopt while the process runs, then
  // its final CallToolResult; `kill` ends it; `describe` is the status message while it runs.
  // Returns the CreateTaskResult, or nullopt without room for a task.
  std::optional<nlohmann::json> Follow(const std::string& describe,
                                       std::function<std::optional<nlohmann::json>()> poll,
                                       std::function<void()> kill);

  // tasks/get's DetailedTask, or nullopt for an unknown or forgotten id.
  std::optional<nlohmann::json> Get(const std::string& id);
  // tasks/cancel: false for an unknown id. Cooperative: the task reads "cancelled" once its
  // work has stopped.
  bool Cancel(const std::string& id);
  // The server is ending: every task's work is cancelled.
  void CancelAll();
  // True while a command that became a task still runs (a followed process does not count: it
  // runs in the sandbox, not here).
  bool HasRunningCommand();

 private:
  struct Task;
  std::shared_ptr<Task> Make();
  bool MakeRoomLocked();
  nlohmann::json Detailed(Task& task);

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Task>> tasks_;
};

}  // namespace agentbox
