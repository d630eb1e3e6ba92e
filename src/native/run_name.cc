#include "native/run_name.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>

namespace agentbox {
namespace {

constexpr char kPrefix[] = "run-";

// The inode of /proc/self/ns/pid, which names this PID namespace; 0 if unreadable.
unsigned long long PidNamespaceId() {
  struct stat st;
  return ::stat("/proc/self/ns/pid", &st) == 0 ? static_cast<unsigned long long>(st.st_ino) : 0;
}

}  // namespace

std::string NewRunName() {
  std::random_device rd;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s%d-%llx-%08x", kPrefix, ::getpid(), PidNamespaceId(), rd());
  return buf;
}

std::optional<RunCreator> RunCreatorOf(const std::string& name) {
  if (name.rfind(kPrefix, 0) != 0) return std::nullopt;
  char* end = nullptr;
  const long pid = std::strtol(name.c_str() + sizeof(kPrefix) - 1, &end, 10);
  if (pid <= 0 || *end != '-') return std::nullopt;
  RunCreator creator;
  creator.pid = static_cast<pid_t>(pid);
  // "-<pidns>-<random>": two fields after the pid; an older name has only "-<random>".
  const char* ns = end + 1;
  const unsigned long long id = std::strtoull(ns, &end, 16);
  const bool has_namespace = end != ns && *end == '-';
  creator.pid_is_ours = !has_namespace || id == PidNamespaceId();
  return creator;
}

}  // namespace agentbox
