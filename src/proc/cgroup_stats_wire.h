// The agent's "box_stats" answer (proto/agent_protocol.h): a cgroup's counters and limits
// (CgroupStats) as JSON, both ways. The agent reads the cgroup it lives in (proc/own_cgroup.h),
// which is the whole box where the runtime gave the box one cgroup (a pod's container), and the
// host takes them from it where it cannot read that cgroup itself (a pod on a cluster's node).
// Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "proc/cgroup.h"

namespace agentbox {

// {"ok":true,"stats":{"peak_memory_bytes":N,"cpu_ms":X,"oom_kills":N,"memory_events":N,
// "pids_events":N,"throttled_periods":N,"memory_limit_bytes":N,"pids_limit":N}}: the agent's
// response frame. Limits are UINT64_MAX for none and 0 where the agent could not read them.
std::string CgroupStatsToWire(const CgroupStats& stats);

// The response, once its status was checked ok; the flags follow from the counters (as
// StatsSince's). The agent runs inside the sandbox: a key that is absent or not a non-negative
// number reads 0 (unknown). kInvalidArgument when it has no "stats" object.
StatusOr<CgroupStats> CgroupStatsFromJson(const nlohmann::json& response);

}  // namespace agentbox
