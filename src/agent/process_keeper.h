// A background process's keeper: the handler that started it (`exec --detach`), staying on.
//
// It answers the detached exec with the process's info once the command has been executed (or
// with its result, if it could not be), then supervises it as any exec is (deadline, disk
// watch, the whole tree killed at its end) and keeps its output in an OutputRing. A second
// thread serves what PID 1 routes to it (agent/process_router.h): logs (followed or not), wait,
// kill and stdin, for any number of clients at once, none of which can block another or the
// command: every client socket is non-blocking with at most a bounded backlog of its own. The
// keeper lives on after the command, so its logs and result can still be read, until PID 1
// lets it go (the oldest exited process, when a new one needs its place) or the sandbox ends.
#pragma once

#include "agent/exec_op.h"
#include "proto/exec_wire.h"
#include "proto/process_wire.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct KeeperStart {
  int conn_fd = -1;     // the detached exec's client: answered, then closed
  int control_fd = -1;  // from PID 1: routed requests; its hang-up ends the keeper
  ExecRequest request;
  ProcessInfo info;      // id, argv, started_at, stdin_open
  UniqueFd stdin_write;  // interactive: the command's stdin
};

[[noreturn]] void RunKeeper(KeeperStart start, StartedExec exec);

}  // namespace agentbox
