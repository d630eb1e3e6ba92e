// The walls only the host side can name: each limit a command hit, with the limit's value, and
// each connection the egress proxy refused. Added to a result's effects once the command is
// over, by whoever knows the policy it ran under (RunNative, SandboxManager::Exec). Pure.
#pragma once

#include <cstdint>

#include "proto/exec_result.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

// The values behind `limits_hit`, as this command had them (an exec's own timeout and output
// limit may differ from its sandbox's).
struct LimitValues {
  double timeout_seconds = 0;
  uint64_t memory_bytes = 0;
  uint64_t pids = 0;
  double cpus = 0;
  uint64_t output_bytes = 0;
  uint64_t disk_bytes = 0;
};
LimitValues LimitValuesOf(const Limits& limits);

// Puts one wall per limit in result.limits_hit first, then one per connection the proxy denied
// and per name the DNS catcher refused; when either saw attempts, drops the network walls
// guessed from stderr (they saw every attempt). Walls already there keep their order after these.
void AddPolicyWalls(ExecResult& result, const LimitValues& limits);

}  // namespace agentbox
