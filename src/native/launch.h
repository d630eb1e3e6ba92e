// LaunchSandbox: clone the sandbox's first process into its namespaces and release it.
//
// Parent side. Prepares the ChildPlan, creates the pipes, clones with every namespace but the
// cgroup one (the child enters that after being moved into its cgroup), writes the uid/gid maps,
// moves the child into the cgroup, then lets it run its setup (child_setup.cc).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "policy/mount_plan.h"
#include "proc/cgroup.h"
#include "proc/supervisor.h"
#include "proc/workspace.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

struct LaunchRequest {
  const SandboxSpec& spec;
  const std::vector<std::string>& argv;
  const MountPlan& mounts;
  const Workspace& workspace;
  Cgroup& cgroup;
  // Persistent sandboxes: PID 1 execs the agent (agent_fd, O_PATH) with listen_fd as its fd 3
  // and log_fd as its stdout/stderr, and outlives agentbox. -1: a one-shot `run` of argv.
  int agent_fd = -1;
  int listen_fd = -1;
  int log_fd = -1;
  // A disk limit the kernel holds: the commands' fallocate calls go through their supervisor,
  // which reports a refused one (proc/fallocate_watch.h). For `run` this process; for a
  // persistent sandbox its agent (started with kAgentDiskWatchFlag).
  bool watch_fallocate = false;
  // The image's detached overlay (native/image_root.h) when the plan's root is an image's.
  int image_root_fd = -1;
  // Added to the command's environment before the spec's own (`run`'s egress proxy variables).
  std::vector<std::pair<std::string, std::string>> extra_env;
  // Called with the child's host pid once its ids are mapped and it is in its cgroup, before it
  // may run a step: what must exist before the command does (the egress listener). A failure
  // kills the child and is LaunchSandbox's.
  std::function<Status(pid_t)> before_release;
};

struct LaunchedSandbox {
  pid_t init_pid = -1;  // host pid of the sandbox's PID 1
  SupervisedSandbox box;
};

StatusOr<LaunchedSandbox> LaunchSandbox(const LaunchRequest& request);

// SIGKILLs the sandbox init through its pidfd; the kernel then kills its whole PID namespace.
void KillSandboxInit(int pidfd);

}  // namespace agentbox
