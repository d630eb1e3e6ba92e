#include "proc/time_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

namespace agentbox {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

int64_t ClockNs(clockid_t clock) {
  struct timespec ts;
  ::clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

// "<sec> <nsec>" with nsec in [0, 1e9), as the kernel wants a negative offset.
std::string Offset(int64_t ns) {
  int64_t sec = ns / kNsPerSecond;
  int64_t nsec = ns % kNsPerSecond;
  if (nsec < 0) {
    nsec += kNsPerSecond;
    --sec;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%lld %lld", static_cast<long long>(sec),
                static_cast<long long>(nsec));
  return buf;
}

}  // namespace

std::string FormatTimeOffsets(int64_t start_ns, int64_t monotonic_ns, int64_t boottime_ns) {
  return "monotonic " + Offset(start_ns - monotonic_ns) + "\nboottime " +
         Offset(start_ns - boottime_ns) + "\n";
}

std::string TimeOffsetsFor(double start_seconds) {
  const auto start = static_cast<int64_t>(std::llround(start_seconds * 1e9));
  return FormatTimeOffsets(start, ClockNs(CLOCK_MONOTONIC), ClockNs(CLOCK_BOOTTIME));
}

bool EnterTimeNamespace(const char* offsets) {
  if (::unshare(CLONE_NEWTIME) != 0) return false;
  int fd = ::open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const size_t len = std::strlen(offsets);
  const bool ok = ::write(fd, offsets, len) == static_cast<ssize_t>(len);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

}  // namespace agentbox
