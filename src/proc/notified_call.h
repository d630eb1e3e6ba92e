// The watches' shared part (proc/fallocate_watch.h, proc/getrandom_watch.h): a few instructions
// put before the command's seccomp filter that send one syscall of the native ABI to the
// user-notification listener (proc/seccomp_listener.h); every other call, and every call of a
// foreign ABI, goes on to the filter unchanged (which kills foreign ABIs and x32, whose numbers
// never equal a native one).
#pragma once

#include <linux/seccomp.h>

#include <vector>

#include "policy/seccomp_program.h"

namespace agentbox {

// `program` with syscall `nr` of the native ABI sent to the listener first.
std::vector<BpfInstruction> WithNotifiedCall(unsigned nr,
                                             const std::vector<BpfInstruction>& program);

// True for a notification of syscall `nr` of the native ABI.
bool IsNativeCall(const struct seccomp_notif& req, unsigned nr);

}  // namespace agentbox
