#include "proc/time_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
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
  // A process whose credentials changed (the native child's setresuid to the namespace's root)
  // is not dumpable, and then its /proc/self files belong to the host's root, which is not
  // mapped in its user namespace: the open fails with EACCES whatever its capabilities. Dumpable
  // for the open only (write is checked against the opener's CAP_SYS_TIME); nothing else of
  // the sandbox exists yet to make use of the moment.
  const int dumpable = ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  if (dumpable == 0) (void)::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  int fd = ::open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
  if (dumpable == 0) {
    const int saved = errno;
    (void)::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    errno = saved;
  }
  if (fd < 0) return false;
  const size_t len = std::strlen(offsets);
  const bool ok = ::write(fd, offsets, len) == static_cast<ssize_t>(len);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

}  // namespace agentbox
