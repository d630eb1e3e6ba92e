// The agent's own channel between PID 1 and each of its handler processes: one SOCK_SEQPACKET
// socketpair per handler, made at its fork. One message is one JSON object, with at most one
// fd riding along. A handler asks PID 1 for what only PID 1 knows (the background processes,
// agent/process_router.h); a handler that became a process's keeper gets its requests on it.
#pragma once

#include <nlohmann/json.hpp>

#include "sys/unique_fd.h"

namespace agentbox {

// A message's largest size: requests and process infos, never output.
inline constexpr size_t kMaxControlMessage = 256 * 1024;

// False when the peer is gone or the message does not fit.
// PID 1's ends are non-blocking: a stopped keeper (a command of a container can SIGSTOP it: same
// uid) must never hang PID 1; the message is then refused.
bool SendControl(int sock, const nlohmann::json& message, int fd = -1);
// False on EOF, an error or a malformed message (its fd, if any, closed).
bool ReceiveControl(int sock, nlohmann::json* message, UniqueFd* fd);

// A handler's question to PID 1, and its answer.
nlohmann::json AskAgent(int control, const nlohmann::json& question, int fd = -1);

}  // namespace agentbox
