// The session log of a persistent sandbox: <state dir>/session.log, JSON lines, append-only.
//
// One record per line, one line per operation: the create, every exec (background processes'
// starts too) and every file operation that changes the workspace, each snapshot and restore
// (core/session_records.h builds them). Each record carries the policy hash, the image digest
// and the workspace digest before and after (proc/workspace_digest.h).
//
// Durability: a record is one write(2) on an O_APPEND descriptor, so writers in several
// processes at once (the CLI, serve) never interleave within a line, written before the
// operation's answer goes out: once a caller holds a result, its record is the kernel's and
// survives a crash of serve or of agentbox. Its writeback to disk is started at once
// (sync_file_range) but not waited for: a crash of the machine itself may lose the records of
// the last seconds (the filesystem's commit interval). Waiting (fdatasync) cost 4 ms of every
// exec on these machines' disks, more than the command. A crash during the write may leave a
// last line without its newline; readers skip it and say so (ParseSessionLog).
//
// Who may read it: the state dir is 0700 and the log 0600, so the host's root (or the user
// running agentbox) only; serve gives each tenant its own sandboxes' logs (docs/security.md).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"

namespace agentbox {

std::string SessionLogPath(const std::string& state_dir);

// Appends `record` as one line and syncs it.
Status AppendSessionRecord(const std::string& state_dir, const nlohmann::ordered_json& record);

struct SessionLog {
  std::vector<nlohmann::json> records;  // in order
  std::vector<size_t> lines;            // each record's line number (1-based)
  bool torn_tail = false;               // the last line had no newline (a write cut short)
};

// Every line must be a JSON object with an "op"; kInvalidArgument naming the first line that is
// not (a torn last line is skipped instead).
StatusOr<SessionLog> ParseSessionLog(const std::string& text);

}  // namespace agentbox
