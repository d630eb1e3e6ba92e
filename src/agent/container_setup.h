// Start-up of the agent in a box agentbox did not build (AgentMode::kContainer).
#pragma once

#include "base/status.h"

namespace agentbox {

// Fails closed unless the box is what the docker backend asks for (`docker run -u 1000:1000
// --cap-drop ALL --security-opt no-new-privileges`): real, effective and saved uid/gid 1000, no
// supplementary group but 1000, every capability set empty, no_new_privs, and a readable /proc
// (the exec trees are found through it). The agent cannot change any of these itself, and its
// commands inherit them as they are.
Status CheckContainerIdentity();

// Makes the agent non-dumpable: its commands run as the same uid, and a dumpable process's
// /proc/PID/{mem,environ,fd,...} are open to its own uid. Forked handlers inherit the flag (only
// execve and credential changes reset it). RLIMIT_CORE 0 as in a native sandbox: a core dump
// would be written to /workspace, past the disk limit.
Status HardenContainerAgent();

}  // namespace agentbox
