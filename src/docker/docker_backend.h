// DockerBackend: persistent sandboxes as Docker containers, made through the Engine API.
//
// The container is the box (namespaces, read-only root, cgroup limits, seccomp profile, no
// capabilities); the agent, bind-mounted read-only, is its init and serves execs and files over
// a socket in the sandbox's state dir, exactly as on the native backend. The daemon must run on
// this host: the workspace and the agent are bind mounts of host paths.
#pragma once

#include <memory>
#include <string>

#include "core/backend.h"

namespace agentbox {

// state_root: the state dir whose sandboxes this backend serves (its containers carry it as a
// label, so `gc` of one state dir never touches another's).
std::unique_ptr<Backend> MakeDockerBackend(const std::string& state_root);

}  // namespace agentbox
