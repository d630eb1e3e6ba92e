// The name of a one-shot `run`: its cgroup and its pool volume (or quota hold) are called
// "run-<pid>-<pidns>-<random>", the creator's pid, the inode of its PID namespace (hex) and 32
// random bits.
//
// Why the namespace: gc removes what a run whose creator died left, and judges "died" by the
// pid. agentbox in a container that shares the host's cgroups (a privileged container on cgroup
// v1) sees the host's runs, and the host sees the container's, each under a pid that means
// nothing, or someone else, in the other's namespace: gc there killed live runs. A pid is
// trusted only in the namespace that named it (docs/architecture.md, "gc").
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace agentbox {

// A fresh name for a run made by this process.
std::string NewRunName();

struct RunCreator {
  pid_t pid = 0;
  // The pid may be judged here: the name was made in this process's PID namespace, or is an
  // older one ("run-<pid>-<random>", before names carried the namespace), judged by its pid as
  // before. False for another namespace's run.
  bool pid_is_ours = false;
};

// The creator of a run's name; nullopt when `name` is not one.
std::optional<RunCreator> RunCreatorOf(const std::string& name);

}  // namespace agentbox
