#include "sys/process_identity.h"

#include <cstdlib>
#include <string>

#include "sys/file_util.h"

namespace agentbox {
namespace {

// The text after "(comm) " of /proc/PID/stat: field 3 onwards; empty if unreadable.
std::string StatFields(pid_t pid) {
  auto stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return "";
  size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 >= stat->size()) return "";
  return stat->substr(close + 2);
}

uint64_t StartTimeField(const std::string& fields) {
  const char* p = fields.c_str();
  for (int field = 3; field < 22 && *p; ++p) {
    if (*p == ' ') ++field;
  }
  return std::strtoull(p, nullptr, 10);
}

}  // namespace

uint64_t ProcessStartTime(pid_t pid) {
  std::string fields = StatFields(pid);
  return fields.empty() ? 0 : StartTimeField(fields);
}

bool ProcessRunning(pid_t pid, uint64_t start_time) {
  if (pid <= 0 || start_time == 0) return false;
  std::string fields = StatFields(pid);
  return !fields.empty() && fields[0] != 'Z' && StartTimeField(fields) == start_time;
}

}  // namespace agentbox
