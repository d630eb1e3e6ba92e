// From what the supervisor saw to the result of CONTRACT §1: one mapping for `run` and `exec`.
#pragma once

#include "proc/cgroup.h"
#include "proc/child_plan.h"
#include "proc/supervisor.h"
#include "proto/exec_result.h"

namespace agentbox {

// Exit code, signal, reason and limits_hit from a finished supervision. `stats` may be empty
// (the agent has no cgroup of its own; the host adds cgroup limits afterwards).
void FillOutcomeResult(const SupervisionOutcome& outcome, const CgroupStats& stats,
                       ExecResult& result);

// A setup failure: 125 (the command never ran), except exec failures, which are the command's
// own 126 (cannot execute) / 127 (not found), like a shell's; their message goes to stderr_data.
void FillSetupErrorResult(const ChildError& error, ExecResult& result);
// "STEP [DETAIL]: strerror": what a setup record says, as one line.
std::string DescribeChildError(const ChildError& error);

}  // namespace agentbox
