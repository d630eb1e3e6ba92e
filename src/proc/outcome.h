// From what the supervisor saw to docs/contract.md §1: one mapping for `run` and `exec`.
#pragma once

#include "proc/cgroup.h"
#include "proc/child_plan.h"
#include "proc/supervisor.h"
#include "proto/exec_result.h"
#include "proto/output_capture.h"

namespace agentbox {

// "STEP [DETAIL]: strerror": what a setup record says, as one line.
std::string DescribeChildError(const ChildError& error);

// The whole result of a finished supervision, for `run` and for the agent's exec alike: exit
// code, signal, reason and limits_hit (cgroup limits from `stats`; the agent has no cgroup of
// its own, the host adds those afterwards), or a setup failure: 125 (the command never ran),
// except exec failures, which are the command's own 126 (cannot execute) / 127 (not found) like
// a shell's; a refused allocation (disk), the output's truncation (output) and
// the usage: the cgroup's when `stats` is given (run), else the tree's rusage (the agent). A
// setup message meant for the command's stderr goes through `output`, as the command's would.
// The caller adds what only it knows (the quota reading, the outputs kept, the duration).
ExecResult ResultOfSupervision(const SupervisionOutcome& outcome, const CgroupStats* stats,
                               OutputCapture& output);

}  // namespace agentbox
