#include "agent/exec_launcher.h"

namespace agentbox {

std::unique_ptr<ExecLauncher> MakeExecLauncher(AgentMode mode) {
  switch (mode) {
    case AgentMode::kNative:
      return MakeNamespaceLauncher();
    case AgentMode::kContainer:
      return MakeSubreaperLauncher();
  }
  return MakeNamespaceLauncher();
}

SupervisedSandbox SupervisedFromPipes(pid_t init_pid, UniqueFd init_pidfd, ExecPipes& pipes) {
  SupervisedSandbox box;
  box.pid = init_pid;
  box.pidfd = std::move(init_pidfd);
  box.stdout_read = std::move(pipes.out.read);
  box.stderr_read = std::move(pipes.err.read);
  box.status_read = std::move(pipes.status.read);
  box.error_read = std::move(pipes.error.read);
  box.listener_read = std::move(pipes.listener.supervisor);
  box.watch_fallocate = pipes.listener.watch_fallocate;
  box.random_seed = pipes.listener.random_seed;
  box.workspace_dev = pipes.listener.workspace_dev;
  pipes = ExecPipes{};  // the child's ends close here: EOF follows the command's exit
  return box;
}

}  // namespace agentbox
