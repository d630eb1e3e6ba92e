// The /dev/urandom watch of policy key random_seed: a seeded sandbox's /dev/urandom and
// /dev/random read the seed's streams too, so that `head -c 16 /dev/urandom` replays.
//
// A few instructions put before the command's filter (proc/notified_call.h) send open(2) and
// openat(2) of the native ABI to the supervisor, on the same user-notification listener as the
// getrandom watch (proc/getrandom_watch.h). The supervisor answers:
//  - a call a rule of the sandbox's filter denies: with that rule's errno, counted, exactly as
//    the filter alone would (policy/seccomp_match.h), so the watch never lets such a call by;
//  - a read-only open of a path that, seen from the caller (its root, cwd or dirfd), names the
//    kernel's random or urandom character device (1:8, 1:9): with a new fd of its own, the read
//    end of a pipe fed with the next open's stream (proc/urandom_feeder.h), installed by
//    SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND (the call's result; O_CLOEXEC and
//    O_NONBLOCK as asked);
//  - anything else: SECCOMP_USER_NOTIF_FLAG_CONTINUE, the kernel's own open for the caller.
//
// Why this never widens access: the supervisor only chooses between the kernel's own open (with
// the caller's credentials, re-resolving the path itself) and a pipe of the public seeded
// stream, which holds no byte of any file. The path is read from the caller's memory before the
// kernel reads it again, so a thread may change it in between (the TOCTOU that seccomp(2) warns
// about for CONTINUE): at worst the caller then gets the kernel's open of the new path, which it
// could have asked for directly, or the seeded pipe for a path that is not the device. The
// same holds for the supervisor's view of symlinks: a path whose absolute symlinks or
// /proc/self links resolve otherwise for the supervisor (the host side of `run`) is decided
// from that view, and costs at most determinism. openat2 needs nothing: the filter fails it
// with ENOSYS (callers fall back to openat). Opens for writing (which feed the kernel's pool)
// and O_PATH opens are the kernel's.
//
// Needs SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND: Linux 5.14. A seeded sandbox is
// refused on an older kernel (SeededUrandomSupported), and under gVisor (no listener at all).
#pragma once

#include <linux/seccomp.h>

#include <string_view>
#include <vector>

#include "base/status.h"
#include "policy/seccomp_program.h"
#include "proc/urandom_feeder.h"

namespace agentbox {

// `program` with open and openat of the native ABI sent to the listener first.
std::vector<BpfInstruction> WithOpenWatch(const std::vector<BpfInstruction>& program);

// True for a notification of the watch's calls.
bool IsWatchedOpen(const struct seccomp_notif& req);

// Supervisor side: answers one such notification that no rule of the filter denies.
void AnswerOpen(int listener, const struct seccomp_notif& req, UrandomFeeder& feeder);

// True when kernel `release` (uname -r: "6.1.0-18-amd64") is at least major.minor. Pure.
bool KernelAtLeast(std::string_view release, int major, int minor);

// OK when this host's kernel can give a seeded /dev/urandom; else Unavailable, saying why.
Status SeededUrandomSupported();

}  // namespace agentbox
