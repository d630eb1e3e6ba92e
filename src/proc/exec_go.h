// The "go" of a prepared exec init.
//
// A warm handler (agent/warm_handler.h) starts the next exec's init before any request exists:
// namespaces, mounts and hardening done, it blocks on a socket for the fields only a request
// gives. SendGo (handler side) sends them; ReceiveGo (init side) fills them into its plan.
// The init may allocate: it was cloned from a single-threaded handler, whose allocator state it
// copied whole.
#pragma once

#include "base/status.h"
#include "proc/child_plan.h"

namespace agentbox {

// command.cwd, argv and envp, with command.stdin_fd passed along (SCM_RIGHTS).
Status SendGo(int go_fd, const CommandLaunch& command);

// Blocks for the go on command.go_fd, then closes it. Fills its cwd, argv, envp and stdin_fd;
// the strings live until exec. False when the handler hung up without one.
bool ReceiveGo(CommandLaunch& command);

}  // namespace agentbox
