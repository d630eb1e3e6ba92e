#include "core/agent_binary.h"

#include <cstdlib>

#include "sys/file_util.h"

namespace agentbox {

std::string AgentBinaryPath() {
  if (const char* env = std::getenv("AGENTBOX_AGENT"); env && *env) return env;
  auto self = SelfExePath();
  if (!self.ok()) return "agentbox-agent";
  const std::string dir = self->substr(0, self->rfind('/') + 1);
  const std::string beside = dir + "agentbox-agent";  // a build tree
  // Installed: PREFIX/bin/agentbox and PREFIX/libexec/agentbox/agentbox-agent (not a command
  // anyone types, so not on PATH).
  const std::string installed = dir + "../libexec/agentbox/agentbox-agent";
  if (!PathExists(beside) && PathExists(installed)) {
    return installed;
  }
  return beside;
}

}  // namespace agentbox
