// Doing something inside another network namespace (a sandbox's) without moving any thread
// that lives on: a thread made for it setns()es there, brings that namespace's loopback up, runs
// the function and ends. What the function makes there (a listening socket, the DNS catcher's)
// stays in that namespace for good, whichever thread or process holds it later.
#pragma once

#include <functional>

#include "base/status.h"

namespace agentbox::sys {

// Runs `fn` on a new thread in the network namespace of `netns_fd` (an open /proc/PID/ns/net);
// returns its status, or why the thread could not get there.
Status InNetworkNamespace(int netns_fd, const std::function<Status()>& fn);

}  // namespace agentbox::sys
