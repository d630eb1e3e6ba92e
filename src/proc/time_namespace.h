// The time namespace of policy key clock_start: CLOCK_MONOTONIC and CLOCK_BOOTTIME (and so
// /proc/uptime) read `clock_start` seconds when the sandbox starts, the same on every run of
// it, so a recorded session and its replay see the same uptime. The offsets are fixed once, at
// the start; the clocks then run as the host's. CLOCK_REALTIME has no offset in a time
// namespace: the wall clock stays the host's (docs/policy.md "Determinism").
//
// The native box's child makes it (child_order.cc S3b), the container agent makes it for itself
// (agent/container_setup.cc); in both, the process that makes it stays outside and its children
// and next exec enter it (time_for_children), which is where commands run.
#pragma once

#include <cstdint>
#include <string>

namespace agentbox {

// Pure: the text of /proc/self/timens_offsets that makes the two clocks read start_ns when
// they read monotonic_ns and boottime_ns outside.
std::string FormatTimeOffsets(int64_t start_ns, int64_t monotonic_ns, int64_t boottime_ns);

// Host side: the offsets for a start of start_seconds, from the clocks now.
std::string TimeOffsetsFor(double start_seconds);

// Child side (no allocation): unshare(CLONE_NEWTIME) and write `offsets` (a NUL-terminated
// text) to /proc/self/timens_offsets. Needs CAP_SYS_TIME in the caller's user namespace, and a
// /proc that is the caller's. False with errno set.
bool EnterTimeNamespace(const char* offsets);

}  // namespace agentbox
