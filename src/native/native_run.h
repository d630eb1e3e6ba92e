// RunNative: `agentbox run` on the native backend — one command in a fresh sandbox.
//
// Builds the sandbox (namespaces, mounts, cgroup, seccomp), runs argv in it, streams or captures
// its output through `output`, enforces every limit of spec.limits, kills the whole process tree
// at the end, removes the sandbox. Never runs the command when a layer cannot be set up: then the
// returned result has reason kError and exit code 125.
#pragma once

#include <string>
#include <vector>

#include "proto/exec_result.h"
#include "proto/output_capture.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

// state_root: agentbox's state directory, whose workspace pool gives the private workspace.
ExecResult RunNative(const SandboxSpec& spec, const std::vector<std::string>& argv,
                     OutputCapture& output, const std::string& state_root);

}  // namespace agentbox
