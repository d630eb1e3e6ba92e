// Start-up of the agent in a box agentbox did not build (AgentMode::kContainer).
#pragma once

#include <optional>

#include "base/status.h"

namespace agentbox {

// When the container runs as an id other than AgentUser() (agent/agent_user.h: uid/gid 1000, or
// an image's user; the docker backend gives it an id no account has, docker/host_ids.h), enters
// a user namespace that maps it, alone, to that user, and drops every capability that namespace
// gave: the agent, its handlers and every command are then that user inside and that id on the
// host. Already that user (a daemon with userns-remap maps it to a subordinate id): nothing to do.
// Call first, while the agent can still write its own /proc/self/uid_map (before
// HardenContainerAgent). With clock_start, also makes the time namespace the agent's handlers and
// commands run in (proc/time_namespace.h), while the new user namespace's capabilities allow it;
// under userns-remap (no user namespace of its own, so no CAP_SYS_TIME) that is refused.
Status EnterSandboxUserNamespace(std::optional<double> clock_start = std::nullopt);

// Fails closed unless the box is what the docker backend asks for (`docker run -u
// 2100001000:2100001000 --cap-drop ALL --security-opt no-new-privileges`, then the user
// namespace above, or -u UID:GID under userns-remap): real, effective and saved uid/gid those of
// AgentUser(), no supplementary group but its gid, every capability set empty, no_new_privs, and a
// readable /proc (the exec trees are found through it). The agent cannot change any of these
// itself, and its commands inherit them as they are.
Status CheckContainerIdentity();

// Makes the agent non-dumpable: its commands run as the same uid, and a dumpable process's
// /proc/PID/{mem,environ,fd,...} are open to its own uid. Forked handlers inherit the flag (only
// execve and credential changes reset it). RLIMIT_CORE 0 as in a native sandbox: a core dump
// would be written to /workspace, past the disk limit.
Status HardenContainerAgent();

}  // namespace agentbox
