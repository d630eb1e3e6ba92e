// A process identity that survives pid reuse: pid plus its start time (/proc/PID/stat field 22).
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace agentbox {

// When `pid` started, in clock ticks since boot; 0 if there is no such process.
uint64_t ProcessStartTime(pid_t pid);

// True while the process `pid` that started at `start_time` runs (not exited, not a zombie).
bool ProcessRunning(pid_t pid, uint64_t start_time);

}  // namespace agentbox
