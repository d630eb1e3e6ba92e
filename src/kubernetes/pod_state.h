// PodStartState(): where a sandbox's pod stands on its way to serving its agent, read from the
// Pod object alone (pure), and a one-line account of why when it is not there: the phase and
// what the cluster says holds it (Unschedulable, ImagePullBackOff, a container's exit, ...).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace agentbox::kubernetes {

struct PodStartState {
  enum Kind {
    kStarting,  // not running yet, nothing said it never will
    kRunning,   // phase Running with a pod IP: the agent can be tried
    kFailed,    // it will not start: ended, or a container the cluster gave up on
  };
  Kind kind = kStarting;
  std::string ip;      // kRunning: status.podIP
  std::string detail;  // "phase Pending: container sandbox ImagePullBackOff: ..."
};

PodStartState ReadPodStartState(const nlohmann::json& pod);

}  // namespace agentbox::kubernetes
