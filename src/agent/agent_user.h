// AgentUser: the user inside that the agent's commands, file operations and terminals run as.
//
// Set once, from `--user UID:GID` (proto/agent_protocol.h kAgentUserFlag), before the agent
// serves anything; every handler process is forked from it afterwards and only reads it. An
// image's non-root User (policy/image_user.h); the strict default uid/gid 1000 without the flag.
#pragma once

#include "spec/sandbox_spec.h"

namespace agentbox {

const SandboxUser& AgentUser();
void SetAgentUser(const SandboxUser& user);

}  // namespace agentbox
