// RunChild: the native box's child, from the cloned process to the agent's or the command's exec.
// The plan it executes (and the steps it shares with the agent's execs) is proc/child_plan.h.
#pragma once

#include "proc/child_plan.h"

namespace agentbox {

// Runs in the cloned child (PID 1 of the new PID namespace); never returns.
[[noreturn]] void RunChild(ChildPlan& plan);

}  // namespace agentbox
