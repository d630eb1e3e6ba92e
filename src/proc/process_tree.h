// Killing a process tree without a PID namespace: the subreaper's way.
//
// In a box agentbox did not build (docker: uid 1000, no capabilities) an exec cannot get a PID
// namespace of its own, whose init's death would make the kernel kill the whole tree. Instead the
// exec's supervising processes set PR_SET_CHILD_SUBREAPER: every orphan among their descendants
// is reparented to them rather than to PID 1, so "all my descendants" becomes "all my children",
// one generation at a time: kill every child, reap it, and its children are mine now.
//
// Only children are ever signalled, and a child's pid cannot be reused before its parent reaps
// it, so no kill here can hit a stranger. No allocation, no locks: safe in a forked child.
#pragma once

#include <sys/types.h>

namespace agentbox {

// Calls visit(pid, ctx) for each process whose parent is the calling process, found by reading
// the parent field of /proc/PID/stat (not /proc/PID/task/TID/children, which needs
// CONFIG_PROC_CHILDREN). A child created or reparented during the scan may be missed: callers
// loop. Returns false when /proc cannot be read.
bool ForEachChild(void (*visit)(pid_t pid, void* ctx), void* ctx);

// SIGKILLs and reaps every child of the caller, round after round, until it has none left. With
// the caller a subreaper that is its whole tree: setsid'd, double-forked, SIGTERM-ignoring and
// stopped processes alike (SIGKILL cannot be caught, ignored or held off by a stop).
void KillAndReapChildren();

// PR_SET_CHILD_SUBREAPER for the caller. gVisor (runsc) does not implement it (EINVAL): there the
// orphans of an exec go straight to the agent (PID 1), which kills every child that is not a
// connection handler, so nothing outlives its exec either, but a command's own orphans die at
// once instead of with the exec (docs/security.md). Async-signal-safe.
bool BecomeSubreaper();

}  // namespace agentbox
