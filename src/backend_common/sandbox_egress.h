// A persistent sandbox's egress proxy (allow_hosts), the same for every backend whose sandbox's
// network namespace is a kernel one (native, docker with runc): started at create beside the
// box, reached by each exec through a listener of its own in that namespace (egress/), gone with
// the sandbox's PID 1 (it watches a pidfd of it) and killed by Destroy.
#pragma once

#include <memory>

#include "base/status.h"
#include "core/backend.h"
#include "core/sandbox_record.h"

namespace agentbox {

// After the box is up (record.init_pid set): the proxy, its control socket at
// <state_dir>/egress.sock, its log at <state_dir>/egress.log; fills record.egress_*.
Status StartSandboxEgress(SandboxRecord& record);
// Kills the proxy if it still runs (it ends by itself once the sandbox's PID 1 is gone).
void StopSandboxEgress(const SandboxRecord& record);
StatusOr<std::unique_ptr<ExecEgress>> OpenSandboxEgress(const SandboxRecord& record);

}  // namespace agentbox
