// The records of the session log (core/session_log.h), built and read back. Pure.
//
// Every record: {"v": 1, "time": RFC 3339 with ms, "op", "sandbox", "policy_hash",
// "image_digest", ...the op's fields..., "workspace_before", "workspace_after"} (the digests
// are null where they could not be computed, "digest_error" then says why). The ops:
//   create         "policy" (the whole policy, what replay makes its sandbox from), and
//                  "from_snapshot" {"id", "sandbox", "workspace_digest"} for a fork
//   exec           the request ("argv", "env", "cwd", "timeout", "output_limit", "tty",
//                  "stdin", "detach") and the outcome ("exit_code", "reason", "signal",
//                  "stdout_digest", "stderr_digest", the truncation flags, "limits_hit",
//                  "duration_ms"; "rolled_back" with --rollback-on-failure; a background
//                  process's start: "process" instead of the outcome)
//   write_file     "path", "mode", "parents", "bytes", "content_digest", and "content_base64"
//                  when at most kMaxLoggedContent bytes
//   mkdir          "path", "parents"
//   remove         "path", "recursive"
//   str_replace    "path", "old_str", "new_str"
//   snapshot       "snapshot" {"id", "name"}
//   restore        "snapshot" {"id", "name"}
// A file operation that failed has "error" and "error_code" and changed nothing.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "core/sandbox_record.h"
#include "proto/exec_result.h"
#include "proto/exec_wire.h"

namespace agentbox {

// A file's bytes are kept in the log up to this size (replay writes them again); beyond it
// only their digest, and replay reports the write as not replayable.
inline constexpr uint64_t kMaxLoggedContent = 256 * 1024;

// "sha256:..." of the policy as `inspect` shows it: equal policies, equal hashes.
std::string PolicyHash(const SandboxSpec& spec);

// {"v", "time", "op", "sandbox", "policy_hash", "image_digest"}.
nlohmann::ordered_json SessionRecordHead(const std::string& op, const SandboxRecord& record);

// Sets "workspace_before" or "workspace_after" from a digest, or null and "digest_error".
void SetWorkspaceDigest(nlohmann::ordered_json& rec, const char* key,
                        const StatusOr<std::string>& digest);

// The request's fields, and an exec's outcome with the digests of its two streams.
void AddExecRequest(nlohmann::ordered_json& rec, const ExecRequest& request);
void AddExecOutcome(nlohmann::ordered_json& rec, const ExecResult& result,
                    const std::string& stdout_digest, const std::string& stderr_digest);
// A file operation's outcome: nothing when it succeeded, else "error" and "error_code".
void AddOutcome(nlohmann::ordered_json& rec, const Status& status);

// The exec request a record describes (replay sends it again). kInvalidArgument naming the
// field that is missing or malformed.
StatusOr<ExecRequest> ExecRequestFromRecord(const nlohmann::json& rec);

}  // namespace agentbox
