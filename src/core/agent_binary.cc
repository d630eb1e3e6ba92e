#include "core/agent_binary.h"

#include <limits.h>
#include <unistd.h>

#include <cstdlib>

namespace agentbox {

std::string AgentBinaryPath() {
  if (const char* env = std::getenv("AGENTBOX_AGENT"); env && *env) return env;
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "agentbox-agent";
  std::string path(self, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/') + 1) + "agentbox-agent";
}

}  // namespace agentbox
