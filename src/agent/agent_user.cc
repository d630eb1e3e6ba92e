#include "agent/agent_user.h"

namespace agentbox {
namespace {

SandboxUser& Current() {
  static SandboxUser user;
  return user;
}

}  // namespace

const SandboxUser& AgentUser() { return Current(); }

void SetAgentUser(const SandboxUser& user) { Current() = user; }

}  // namespace agentbox
