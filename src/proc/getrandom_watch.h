// The getrandom watch of policy key random_seed: the commands' getrandom(2) answered from a
// seeded stream (proc/seeded_random.h), so that a replayed command reads the same bytes.
//
// A few instructions put before the command's filter send getrandom of the native ABI to its
// supervisor, on the same user-notification listener as its denials
// (proc/seccomp_listener.h) and in the same way as the fallocate watch (proc/fallocate_watch.h).
// The supervisor writes the next bytes of the stream into the caller's buffer through
// /proc/PID/mem (process_vm_writev is one of the calls the sandbox's own filter denies, and
// the agent that supervises an exec runs under that filter), after checking that the
// notification is still live, and answers with the count. One stream per listener: `run`'s
// command tree shares one, and each exec of a persistent sandbox starts again from the seed.
//
// At most kMaxGetrandomBytes per call: a larger one gets a short count, as getrandom may give
// (callers loop). Flags (GRND_NONBLOCK, GRND_RANDOM, GRND_INSECURE) change nothing. A buffer the
// supervisor cannot write to is EFAULT; a process it cannot reach at all (one that made itself
// non-dumpable) gets EPERM: never real randomness in a sandbox that promised the seeded kind.
// Where the kernel gives no listener (gVisor) random_seed is refused when the sandbox is made.
#pragma once

#include <linux/seccomp.h>

#include <cstddef>
#include <vector>

#include "policy/seccomp_program.h"
#include "proc/seeded_random.h"

namespace agentbox {

inline constexpr size_t kMaxGetrandomBytes = 1 << 20;

// `program` with getrandom of the native ABI sent to the listener first; every other call goes
// on to `program` unchanged.
std::vector<BpfInstruction> WithGetrandomWatch(const std::vector<BpfInstruction>& program);

// True for a notification of the watch's call.
bool IsWatchedGetrandom(const struct seccomp_notif& req);

// Supervisor side: answers one such notification on `listener` from `stream`.
void AnswerGetrandom(int listener, const struct seccomp_notif& req, SeededRandom& stream);

}  // namespace agentbox
