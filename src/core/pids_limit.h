// How a sandbox's pids limit (policy key pids) is held, as `inspect` and `create` report it.
//
// native and docker write the box's pids.max themselves. A pod has no such field (Kubernetes'
// only pids limit is the kubelet's podPidsLimit, one value for every pod of a node) and
// RLIMIT_NPROC counts a uid's processes across the whole node, so nothing agentbox can set holds
// it there: the limit is held only when the runtime's own pids.max for the box, read through its
// agent, is at most the policy's. Never claimed otherwise. Pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace agentbox {

struct PidsLimitReport {
  uint64_t count = 0;            // the policy's
  std::optional<bool> enforced;  // nullopt: no reading (a dead sandbox)
  std::string reason;            // why not, when enforced is false
};

// `got`: the box's pids.max as its backend reads it (ResourceSnapshot::pids_limit: UINT64_MAX
// for none, 0 unknown); nullopt when there is no reading. `pod`: the box is a Kubernetes pod.
PidsLimitReport PidsLimitReportOf(uint64_t want, std::optional<uint64_t> got, bool pod);

// {"count":N,"enforced":bool or null,"reason":why (only when not enforced)}.
nlohmann::json PidsLimitJson(const PidsLimitReport& report);

// "note: the pids limit 256 is not enforced: <why>" when enforced is false; "" otherwise.
std::string UnheldPidsLimitNote(const PidsLimitReport& report);

}  // namespace agentbox
