// The fallocate watch: how a refused allocation reaches `limits_hit`.
//
// The quota refuses a write at the limit, and a write refused there leaves the workspace full,
// which the quota reading sees (AtDiskLimit). One allocation bigger than what is left is refused
// whole and leaves the workspace as it was: the kernel keeps no count of refusals, so nothing
// after the command could tell. So the command's fallocate(2) calls are handed to its
// supervisor too, by a few instructions put before the sandbox's filter, on the same
// user-notification listener as its denials (proc/seccomp_listener.h): for a file of the
// workspace the supervisor makes the same call on the same open file, with no effective
// capabilities, and answers the command with its result; a refusal (EDQUOT, ENOSPC) is
// remembered. Anything else (another filesystem, a file-size limit the call would cross, a
// process that cannot be reached, such as one that made itself non-dumpable) is let through to
// the kernel as the command's own call.
//
// The limit never depends on this: the kernel's quota holds it either way, and the watch only
// says that it did. Where the kernel cannot give a listener (gVisor), the init goes on without.
#pragma once

#include <linux/seccomp.h>
#include <sys/types.h>

#include <vector>

#include "policy/seccomp_program.h"

namespace agentbox {

// `program` with fallocate of the native ABI sent to the listener first; every other call goes
// on to `program` unchanged.
std::vector<BpfInstruction> WithFallocateWatch(const std::vector<BpfInstruction>& program);

// True for a notification of the watch's call.
bool IsWatchedFallocate(const struct seccomp_notif& req);

// Supervisor side: answers one such notification on `listener` (the reply is sent here) and
// returns whether a workspace allocation was refused for want of space. `workspace_dev` is the
// st_dev of the workspace as the supervisor sees it.
bool AnswerFallocate(int listener, const struct seccomp_notif& req, dev_t workspace_dev);

}  // namespace agentbox
