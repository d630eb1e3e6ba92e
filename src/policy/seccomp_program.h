// SeccompProgram: the strict seccomp filter of docs/contract.md §2 as classic BPF, compiled once.
//
// Pure: no OS headers. BpfInstruction has the layout of struct sock_filter, so the native
// backend installs instructions().data() as-is with seccomp(SECCOMP_SET_MODE_FILTER).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace agentbox {

struct BpfInstruction {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};

// The default filter for this build's architecture. Compiled at most once per process (or at
// build time); cheap to call on every run.
const std::vector<BpfInstruction>& DefaultSeccompProgram();

// The same filter, but each denial is handed to a user-notification listener
// (SECCOMP_RET_USER_NOTIF) instead of being answered by the kernel: the supervisor holding the
// listener answers with the very errno the rule gives (policy/seccomp_match.h) and counts it, so
// the effect report can name every denied call. Only the ENOSYS rules (clone3, openat2) stay
// the kernel's: they are how callers learn to fall back, not walls. Every other instruction is
// DefaultSeccompProgram()'s, so what is denied is exactly the same. Made once per process.
//
// If nobody holds the listener (it was closed, its holder died), the kernel fails each such
// call with ENOSYS: still denied, never executed.
const std::vector<BpfInstruction>& NotifyingSeccompProgram();

}  // namespace agentbox
