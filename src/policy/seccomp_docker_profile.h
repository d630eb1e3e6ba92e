// The seccomp rules as a Docker seccomp profile, for the docker backend.
//
// Built from the same SeccompRules() table as the native backend's BPF, so both backends deny
// the same calls with the same errno. Pass it as HostConfig.SecurityOpt "seccomp=<json>".
// It binds the agent too (the container's PID 1), so the rules for calls the agent itself makes
// (openat2) are left to agentbox's own filter, which every exec installs on top of this profile
// before running its command.
#pragma once

#include <string>

namespace agentbox {

// Docker's profile format (moby/profiles/seccomp): defaultAction SCMP_ACT_ALLOW, the native
// architecture only (runc applies libseccomp's kill action to other ABIs), and one syscalls[]
// entry per rule: {names, action SCMP_ACT_ERRNO, errnoRet, args[{index,value,valueTwo,op}],
// comment}. Compact JSON; deterministic (same bytes on every call).
std::string DockerSeccompProfileJson();

}  // namespace agentbox
