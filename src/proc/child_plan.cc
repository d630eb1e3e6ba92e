#include "proc/child_plan.h"

namespace agentbox {

void PointAtCommand(CommandStrings& strings, CommandLaunch& command) {
  command.argv.clear();
  command.envp.clear();
  for (auto& a : strings.argv) command.argv.push_back(a.data());
  command.argv.push_back(nullptr);
  for (auto& e : strings.env) command.envp.push_back(e.data());
  command.envp.push_back(nullptr);
}

const char* ChildStepName(ChildStep step) {
  switch (step) {
    case ChildStep::kSync:
      return "waiting for the parent";
    case ChildStep::kIdentity:
      return "becoming root of the user namespace";
    case ChildStep::kCgroupNamespace:
      return "creating the cgroup namespace";
    case ChildStep::kMakePrivate:
      return "making mounts private";
    case ChildStep::kRootTmpfs:
      return "mounting the new root";
    case ChildStep::kMount:
      return "mounting";
    case ChildStep::kHostname:
      return "setting the hostname";
    case ChildStep::kTimeNamespace:
      return "making the time namespace (clock_start)";
    case ChildStep::kLoopback:
      return "bringing up loopback";
    case ChildStep::kPivotRoot:
      return "pivot_root";
    case ChildStep::kRlimits:
      return "setting rlimits";
    case ChildStep::kSubreaper:
      return "becoming the subreaper of the command's processes";
    case ChildStep::kFork:
      return "forking the command";
    case ChildStep::kCwd:
      return "changing to the working directory";
    case ChildStep::kDropPrivileges:
      return "dropping privileges";
    case ChildStep::kNoNewPrivs:
      return "setting no_new_privs";
    case ChildStep::kSeccomp:
      return "installing the seccomp filter";
    case ChildStep::kExec:
      return "executing the command";
  }
  return "unknown step";
}

}  // namespace agentbox
