// The agent's exec: one command of the sandbox, its whole process tree killed when it ends.
#pragma once

#include <memory>
#include <optional>

#include "agent/agent_options.h"
#include "agent/exec_launcher.h"
#include "proto/exec_wire.h"
#include "sys/unique_fd.h"

namespace agentbox {

// An exec's init, started: how to supervise and kill it.
struct StartedExec {
  std::unique_ptr<ExecLauncher> launcher;
  SupervisedSandbox box;
};

// The next exec's init, started before its request: namespaces, mounts and hardening are done
// and it waits on `go` for the command (proc/exec_go.h). Closing `go` unused ends it.
struct PreparedExec {
  StartedExec started;
  UniqueFd go;
};

// How this agent's execs are made: its mode, whether they carry the fallocate watch and the
// getrandom watch (proc/getrandom_watch.h), and the open_files limit it gives them.
struct ExecSetup {
  AgentMode mode = AgentMode::kNative;
  bool disk_watch = false;
  std::optional<uint64_t> random_seed;
  uint64_t open_files = 0;  // each exec's RLIMIT_NOFILE (agent --open-files); 0: inherited
};

// Null when it cannot be started; the exec then starts its init itself.
std::unique_ptr<PreparedExec> PrepareExec(const ExecSetup& setup);

// Runs request (stdin_fd: the client's stdin, or -1 for /dev/null; request.stdin_frames: a
// pipe the client's kData frames are written into, agent/stdin_frames.h), streaming kStdout/kStderr
// frames on conn_fd and ending with the kResponse frame. The command's whole process tree is
// killed at its timeout, when it exits, and when the client hangs up; how depends on the mode
// (agent/exec_launcher.h). A prepared init is used when given and still alive. `control_fd`
// (the handler's channel to PID 1, -1: none) gets the names the exec looked up into its result
// (agent/exec_lookups.h). An exec that
// cannot be started (no fd, no process, no namespace for its init) is not a result: the error
// comes back with its code and nothing was sent, for the caller to answer (serve: 503, not a
// 200 with exit 125).
Status HandleExec(int conn_fd, const ExecRequest& request, int stdin_fd, const ExecSetup& setup,
                  int control_fd, std::unique_ptr<PreparedExec> prepared);

// request.tty: the same with a PTY (agent/terminal.h) as the command's stdin, stdout and stderr;
// the client's kData and kResize frames are its keystrokes and window sizes while it runs.
Status HandleTerminalExec(int conn_fd, const ExecRequest& request, const ExecSetup& setup,
                          int control_fd, std::unique_ptr<PreparedExec> prepared);

// request.detach: registers a background process with PID 1 on control_fd and, once its
// command is started, becomes its keeper (agent/process_keeper.h), never to return. An error
// (too many processes, nothing could be started) is returned, nothing sent, as HandleExec's.
Status HandleDetachedExec(int conn_fd, const ExecRequest& request, const ExecSetup& setup,
                          int control_fd, std::unique_ptr<PreparedExec> prepared);

}  // namespace agentbox
