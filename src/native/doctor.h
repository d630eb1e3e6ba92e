// Doctor: checks that this host can give every isolation layer the native backend promises.
//
// Each check names one layer (user namespaces, cgroup memory controller, seccomp, ...), whether it
// is available, and when it is not, exactly what is missing and how to get it. `agentbox doctor`
// prints them; `run` refuses (exit 125) when a required one fails.
#pragma once

#include <string>
#include <vector>

namespace agentbox {

struct DoctorCheck {
  std::string layer;  // short name, e.g. "user namespaces"
  bool ok = false;
  std::string detail;  // what was found, or what is missing and how to fix it
};

// state_root: where the workspace pool (the disk limit's quota) lives; "" skips that check.
std::vector<DoctorCheck> RunDoctorChecks(const std::string& state_root = "");

}  // namespace agentbox
