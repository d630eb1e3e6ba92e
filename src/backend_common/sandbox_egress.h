// A persistent sandbox's egress proxy (allow_hosts), the same for every backend: started at
// create beside the box, reached by each exec through a listener of its own in the sandbox's
// network namespace (native, docker with runc), or under gVisor, whose network the host cannot
// enter, and on kubernetes, whose pods are on another network, through the sandbox's egress
// relay (record.egress_relay: a socket path, or the pod's agent "tcp:HOST:PORT" reached with
// record.agent_token; agent/egress_relay.h); gone with the sandbox's PID 1 (a pidfd of it; on
// kubernetes the relay's background listener closing) and killed by Destroy.
#pragma once

#include <memory>

#include "base/status.h"
#include "core/backend.h"
#include "core/sandbox_record.h"

namespace agentbox {

// After the box is up (record.init_pid set): the proxy, its control socket at
// <state_dir>/egress.sock, its log at <state_dir>/egress.log, and the listener of the sandbox's
// background processes (exec -d), which share it; fills record.egress_*.
Status StartSandboxEgress(SandboxRecord& record);
// Kills the proxy if it still runs (it ends by itself once the sandbox's PID 1 is gone).
void StopSandboxEgress(const SandboxRecord& record);
// Whether the proxy record.egress_* names runs on this host (by its pid and start time; a zombie
// not reaped yet has ended).
bool SandboxEgressRuns(const SandboxRecord& record);
StatusOr<std::unique_ptr<ExecEgress>> OpenSandboxEgress(const SandboxRecord& record);

}  // namespace agentbox
