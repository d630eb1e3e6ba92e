// Bringing up the loopback interface of the calling thread's network namespace: the sandbox's
// own step (proc/box_steps.cc) and the egress proxy's listener (egress/proxy_process.cc), which
// may be made before the sandbox has run that step.
#pragma once

namespace agentbox::sys {

// SIOCSIFFLAGS "lo" IFF_UP|IFF_RUNNING. No allocation (the child runs it between clone and
// exec); false with errno set on failure.
bool BringUpLoopback();

}  // namespace agentbox::sys
