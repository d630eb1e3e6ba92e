// Supervisor: the parent's event loop while a sandboxed command runs.
//
// Pumps stdout/stderr into the OutputCapture, watches the sandbox init (pidfd), the wall-clock
// deadline and agentbox's own termination signals, and kills the sandbox when
// a limit is hit. Returns when the sandbox init has exited (or, with finish_on_report, has
// reported) and the output pipes are drained.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "proc/child_plan.h"
#include "proc/seccomp_listener.h"
#include "proto/effect_report.h"
#include "proto/output_capture.h"
#include "sys/unique_fd.h"

namespace agentbox {

struct SupervisedSandbox {
  pid_t pid = -1;  // the sandbox init
  UniqueFd pidfd;
  UniqueFd stdout_read;
  UniqueFd stderr_read;
  UniqueFd status_read;   // the command's wait status, written by the init
  UniqueFd error_read;    // ChildError records from the setup
  UniqueFd parent_alive;  // held open while we live: the sandbox dies when it hangs up
  // The seccomp listener's channel (proc/seccomp_listener.h), its receiving end (invalid: no
  // listener); with watch_fallocate, the fallocate watch for the workspace of st_dev
  // workspace_dev comes through it too (proc/fallocate_watch.h); with random_seed, getrandom
  // (proc/getrandom_watch.h).
  UniqueFd listener_read;
  bool watch_fallocate = false;
  dev_t workspace_dev = 0;
  std::optional<uint64_t> random_seed;
};

struct SupervisionLimits {
  std::chrono::steady_clock::time_point deadline;
  // SIGKILLs every process of the sandbox.
  std::function<void()> kill_all;
  // Readable or hung up = the client went away: kill everything (-1: none).
  int cancel_fd = -1;
  // The init's report (InitReport: the tree is dead by then) and the output's EOF end the
  // supervision; the init's own exit, which tears down its namespaces, is left to the caller
  // (it must still reap the init). Otherwise the supervision also waits for that exit.
  bool finish_on_report = false;
  // stdout is a terminal's master (a tty exec): its end is the tree's end, not an EOF. Once the
  // init reported, exited or was killed, no writer is left, and the master is read until it
  // has nothing more (EAGAIN). Linux also hangs the master up then (EIO), but gVisor's never
  // does (google/gvisor#9333): waiting for that EOF there never ended the exec.
  bool output_is_terminal = false;
};

struct SupervisionOutcome {
  bool timed_out = false;
  std::optional<int> host_signal;     // agentbox itself got SIGINT/SIGTERM/SIGHUP
  std::optional<int> command_status;  // raw wait status of the command
  std::optional<ChildError> setup_error;
  bool cancelled = false;      // the client behind cancel_fd disconnected
  double cpu_ms = 0;           // every process of the tree (rusage; the init's too once reaped)
  uint64_t max_rss_bytes = 0;  // the largest single process (rusage)
  bool disk_refused = false;   // the watch saw a workspace allocation refused for want of space
  // The seccomp listener served the command: denied_syscalls is every denial of its tree.
  bool syscalls_observed = false;
  std::vector<DeniedSyscall> denied_syscalls;
  std::vector<Wall> output_walls;         // what its stderr named (proto/output_walls.h)
  std::optional<uint64_t> written_bytes;  // from the init's report
  std::optional<uint64_t> pids_started;
};

SupervisionOutcome Supervise(SupervisedSandbox& box, OutputCapture& output,
                             const SupervisionLimits& limits);

// Blocks the signals Supervise watches (call before clone; the child unblocks them).
void BlockSupervisorSignals();
void UnblockSupervisorSignals();

}  // namespace agentbox
