// The cloned child's whole order, from the first step after clone to the command's exec, for
// every way agentbox starts one (child_order.cc has each step with its reason). The plan is
// proc/child_plan.h; each step is one function of proc/child_steps.h.
#pragma once

#include "proc/child_plan.h"

namespace agentbox {

// The native sandbox: PID 1 of new user, mount, PID, IPC, UTS and net namespaces. Builds the
// box, then becomes the agent (a persistent sandbox) or the command's init (`run`).
[[noreturn]] void RunSandboxChild(ChildPlan& plan);

// An agent's exec in a native sandbox: PID 1 of its own PID and mount namespaces, inside the
// sandbox. Mounts its own /proc, then becomes the command's init.
[[noreturn]] void RunNamespaceExecChild(ChildPlan& plan);

// An agent's exec in a container (no namespaces of its own): a forked subreaper that becomes the
// command's init.
[[noreturn]] void RunSubreaperExecChild(ChildPlan& plan);

}  // namespace agentbox
