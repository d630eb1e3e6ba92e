#include "core/agent_binary.h"

#include <cstdlib>

#include "sys/file_util.h"

namespace agentbox {

std::string AgentBinaryPath() {
  if (const char* env = std::getenv("AGENTBOX_AGENT"); env && *env) return env;
  auto self = SelfExePath();
  if (!self.ok()) return "agentbox-agent";
  return self->substr(0, self->rfind('/') + 1) + "agentbox-agent";
}

}  // namespace agentbox
