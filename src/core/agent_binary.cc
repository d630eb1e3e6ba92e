#include "core/agent_binary.h"

#include <cstdlib>

#include "sys/file_util.h"

namespace agentbox {

std::string HelperBinaryPath(const char* env_var, const std::string& name) {
  if (const char* env = std::getenv(env_var); env && *env) return env;
  auto self = SelfExePath();
  if (!self.ok()) return name;
  const std::string dir = self->substr(0, self->rfind('/') + 1);
  const std::string beside = dir + name;
  const std::string installed = dir + "../libexec/agentbox/" + name;
  if (!PathExists(beside) && PathExists(installed)) return installed;
  return beside;
}

std::string AgentBinaryPath() { return HelperBinaryPath("AGENTBOX_AGENT", "agentbox-agent"); }

}  // namespace agentbox
