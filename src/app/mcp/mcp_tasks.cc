#include "app/mcp/mcp_tasks.h"

#include <condition_variable>
#include <thread>
#include <vector>

#include "core/sandbox_record.h"
#include "sys/random_id.h"

namespace agentbox {
namespace {

using nlohmann::json;
using SystemClock = std::chrono::system_clock;
using SteadyClock = std::chrono::steady_clock;

std::string Timestamp(SystemClock::time_point t) {
  return Rfc3339(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
}

}  // namespace

struct McpTasks::Task {
  std::string id = RandomHexId();
  SystemClock::time_point created = SystemClock::now();
  ExecCancellation cancellation;
  std::thread thread;                         // Run's work; not joinable for Follow
  std::function<std::optional<json>()> poll;  // Follow's process
  std::function<void()> kill;
  std::mutex mutex;  // guards the fields below
  std::condition_variable done_cv;
  std::string status = "working";
  std::string status_message;
  json result;  // the CallToolResult once completed
  bool cancel_requested = false;
  SystemClock::time_point updated = created;
  std::optional<SteadyClock::time_point> finished;  // when it reached a terminal status

  void Finish(json final_result) {
    std::lock_guard<std::mutex> lock(mutex);
    result = std::move(final_result);
    result["resultType"] = "complete";
    status = cancel_requested || cancellation.cancelled() ? "cancelled" : "completed";
    status_message = status == "cancelled" ? "cancelled by tasks/cancel" : "";
    updated = SystemClock::now();
    finished = SteadyClock::now();
    done_cv.notify_all();
  }
};

McpTasks::~McpTasks() {
  CancelAll();
  std::map<std::string, std::shared_ptr<Task>> tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks.swap(tasks_);
  }
  for (auto& [id, task] : tasks) {
    if (task->thread.joinable()) task->thread.join();
  }
}

// Forgets tasks finished kRetention ago; then, when full, the oldest finished one. False when
// every task is still working.
bool McpTasks::MakeRoomLocked() {
  const auto now = SteadyClock::now();
  std::shared_ptr<Task> oldest;
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    std::shared_ptr<Task> task = it->second;
    std::optional<SteadyClock::time_point> finished;
    {
      std::lock_guard<std::mutex> lock(task->mutex);
      finished = task->finished;
    }
    if (finished && now - *finished >= kRetention) {
      if (task->thread.joinable()) task->thread.join();
      it = tasks_.erase(it);
      continue;
    }
    if (finished && (!oldest || task->created < oldest->created)) oldest = task;
    ++it;
  }
  if (tasks_.size() < kMaxTasks) return true;
  if (!oldest) return false;
  if (oldest->thread.joinable()) oldest->thread.join();
  tasks_.erase(oldest->id);
  return true;
}

std::shared_ptr<McpTasks::Task> McpTasks::Make() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!MakeRoomLocked()) return nullptr;
  auto task = std::make_shared<Task>();
  tasks_[task->id] = task;
  return task;
}

json McpTasks::Detailed(Task& task) {
  std::lock_guard<std::mutex> lock(task.mutex);
  json out = {{"taskId", task.id},
              {"status", task.status},
              {"createdAt", Timestamp(task.created)},
              {"lastUpdatedAt", Timestamp(task.updated)},
              {"ttlMs", nullptr},  // kept as long as it works
              {"pollIntervalMs", kPollIntervalMs}};
  if (!task.status_message.empty()) out["statusMessage"] = task.status_message;
  if (task.finished) {
    const auto kept =
        (SystemClock::now() - task.created) + (kRetention - (SteadyClock::now() - *task.finished));
    out["ttlMs"] = std::chrono::duration_cast<std::chrono::milliseconds>(kept).count();
    if (task.status == "completed") out["result"] = task.result;
  }
  return out;
}

std::optional<json> McpTasks::RunOrNull(std::function<json(ExecCancellation*)> work,
                                        ExecCancellation* request) {
  std::shared_ptr<Task> task = Make();
  if (!task) return std::nullopt;
  task->thread =
      std::thread([task, work = std::move(work)] { task->Finish(work(&task->cancellation)); });
  // The request itself may still be cancelled while the call has not become a task yet.
  const auto deadline = SteadyClock::now() + kGrace;
  std::unique_lock<std::mutex> lock(task->mutex);
  while (!task->finished && SteadyClock::now() < deadline) {
    if (request && request->cancelled()) task->cancellation.Cancel();
    task->done_cv.wait_for(lock, std::chrono::milliseconds(50));
  }
  if (!task->finished) {
    lock.unlock();
    json created = Detailed(*task);
    created["resultType"] = "task";
    created["statusMessage"] = "the command is still running; poll tasks/get for its result";
    return created;
  }
  json result = task->result;
  lock.unlock();
  // Answered directly: the client never saw this task. Whoever takes it out of the map joins
  // its thread (MakeRoomLocked may have evicted it, finished, meanwhile).
  bool mine = false;
  {
    std::lock_guard<std::mutex> tasks_lock(mutex_);
    mine = tasks_.erase(task->id) > 0;
  }
  if (mine) task->thread.join();
  return result;
}

std::optional<json> McpTasks::Follow(const std::string& describe,
                                     std::function<std::optional<json>()> poll,
                                     std::function<void()> kill) {
  std::shared_ptr<Task> task = Make();
  if (!task) return std::nullopt;
  task->poll = std::move(poll);
  task->kill = std::move(kill);
  task->status_message = describe;
  json created = Detailed(*task);
  created["resultType"] = "task";
  return created;
}

std::optional<json> McpTasks::Get(const std::string& id) {
  std::shared_ptr<Task> task;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    (void)MakeRoomLocked();  // forgets the expired ones first
    auto it = tasks_.find(id);
    if (it == tasks_.end()) return std::nullopt;
    task = it->second;
  }
  bool working = false;
  {
    std::lock_guard<std::mutex> lock(task->mutex);
    working = !task->finished;
  }
  if (working && task->poll) {
    if (std::optional<json> final_result = task->poll()) task->Finish(std::move(*final_result));
  }
  return Detailed(*task);
}

bool McpTasks::Cancel(const std::string& id) {
  std::shared_ptr<Task> task;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = tasks_.find(id);
    if (it == tasks_.end()) return false;
    task = it->second;
  }
  {
    std::lock_guard<std::mutex> lock(task->mutex);
    if (task->finished) return true;  // too late: it keeps its terminal status
    task->cancel_requested = true;
  }
  task->cancellation.Cancel();  // the agent kills the command's process tree
  if (task->kill) task->kill();
  return true;
}

bool McpTasks::HasRunningCommand() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [id, task] : tasks_) {
    std::lock_guard<std::mutex> task_lock(task->mutex);
    if (!task->finished && !task->poll) return true;
  }
  return false;
}

void McpTasks::CancelAll() {
  std::vector<std::shared_ptr<Task>> tasks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [id, task] : tasks_) tasks.push_back(task);
  }
  for (auto& task : tasks) task->cancellation.Cancel();
}

}  // namespace agentbox
