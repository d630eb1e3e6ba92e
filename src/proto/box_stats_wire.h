// The agent's "box_stats" answer (proto/agent_protocol.h): the counters and limits of the cgroup
// the agent itself lives in, which is the whole box where the runtime gave the box one cgroup
// (a pod's container). The host reads them there when it cannot read the cgroup itself (a pod
// on a cluster's node). Pure: JSON text both ways.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace agentbox {

inline constexpr const char* kBoxStatsOp = "box_stats";

// As proc/cgroup.h's CgroupStats counts them: counters since the cgroup was made; limits
// UINT64_MAX for none and 0 where the agent could not read them (unknown).
struct BoxStats {
  uint64_t peak_memory_bytes = 0;
  double cpu_ms = 0;
  uint64_t oom_kills = 0;
  uint64_t memory_events = 0;
  uint64_t pids_events = 0;
  uint64_t throttled_periods = 0;
  uint64_t memory_limit_bytes = 0;
  uint64_t pids_limit = 0;
};

// {"ok":true,"stats":{"peak_memory_bytes":N,...}}: the agent's response frame.
std::string BoxStatsToWire(const BoxStats& stats);
// The response, once its status was checked ok. A key that is absent or not a number reads 0
// (unknown); kInvalidArgument when it has no "stats" object.
StatusOr<BoxStats> BoxStatsFromJson(const nlohmann::json& response);

}  // namespace agentbox
