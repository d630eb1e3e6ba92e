// When a persistent sandbox was last used, for its idle timeout (policy key `idle_timeout`).
//
// The mtime of STATE/sandboxes/ID/active is the end of its last use: create, and the start and
// end of every exec and file operation, touch it. An exec holds a shared flock on it while it
// runs, so a sandbox busy with a long command is never idle, however long ago it began; the
// check takes the lock exclusively (without waiting) and keeps it while the sandbox is removed,
// so no exec can start on a sandbox being removed for idleness.
#pragma once

#include <cstdint>
#include <optional>

#include "core/sandbox_record.h"
#include "sys/unique_fd.h"

namespace agentbox {

// Touches the activity file now (creating it). Best effort: a failure only shortens nothing.
void MarkActive(const SandboxRecord& record);

// Held for the length of one use (an exec): a shared lock on the activity file, touched when
// taken and again when let go.
class ActivityHold {
 public:
  explicit ActivityHold(const SandboxRecord& record);
  ~ActivityHold();
  ActivityHold(const ActivityHold&) = delete;
  ActivityHold& operator=(const ActivityHold&) = delete;

 private:
  UniqueFd fd_;
};

// The sandbox to oneself (a restore, a command with --rollback-on-failure): the activity file
// locked exclusively, without waiting, and touched. Invalid while anything else uses the
// sandbox (an exec, a file operation, a follow of a process's output); every such use that
// begins meanwhile waits until it is released.
UniqueFd TakeExclusiveUse(const SandboxRecord& record);

// Unix seconds of the last use (nullopt: no activity file, a sandbox from before idle timeouts).
std::optional<int64_t> LastActive(const SandboxRecord& record);

// The sandbox has an idle timeout and has been unused for it at `now`: returns the activity
// file, locked exclusively (hold it until the sandbox is removed). Invalid otherwise, or while
// an exec holds it.
UniqueFd ClaimIdle(const SandboxRecord& record, int64_t now);

// Whether the idle timeout had ended at `now` (without locking: for messages).
bool IdleTimeoutEnded(const SandboxRecord& record, int64_t now);

}  // namespace agentbox
