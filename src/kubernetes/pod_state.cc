#include "kubernetes/pod_state.h"

#include <array>
#include <string_view>

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

// Waiting reasons after which the kubelet will not start the container without a change to
// the pod or the cluster: waiting on them only turns a clear error into a timeout.
constexpr std::array<std::string_view, 7> kFatalWaiting = {
    "ImagePullBackOff",     "ErrImageNeverPull", "InvalidImageName", "CreateContainerConfigError",
    "CreateContainerError", "RunContainerError", "CrashLoopBackOff"};

std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string WithMessage(const std::string& reason, const std::string& message) {
  return message.empty() ? reason : reason + ": " + message;
}

// The first container (init containers first) that waits or ended badly, as one phrase; fatal
// when the cluster gave up on it.
std::string ContainerTrouble(const json& status, bool* fatal) {
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    if (!status.contains(list) || !status[list].is_array()) continue;
    for (const json& c : status[list]) {
      const json state = c.value("state", json::object());
      const std::string who = "container " + Str(c, "name") + " ";
      if (state.contains("waiting")) {
        const std::string reason = Str(state["waiting"], "reason");
        if (reason.empty() || reason == "ContainerCreating" || reason == "PodInitializing")
          continue;
        for (std::string_view f : kFatalWaiting) *fatal = *fatal || reason == f;
        return who + WithMessage(reason, Str(state["waiting"], "message"));
      }
      if (state.contains("terminated") && state["terminated"].value("exitCode", 0) != 0) {
        *fatal = true;
        const json& t = state["terminated"];
        return who + "exited " + std::to_string(t.value("exitCode", 0)) +
               (Str(t, "reason").empty()
                    ? ""
                    : " (" + WithMessage(Str(t, "reason"), Str(t, "message")) + ")");
      }
    }
  }
  return "";
}

// A condition that is False with a reason (PodScheduled False: Unschedulable: 0/3 nodes ...).
std::string FalseCondition(const json& status) {
  if (!status.contains("conditions") || !status["conditions"].is_array()) return "";
  for (const json& c : status["conditions"]) {
    if (Str(c, "status") == "False" && !Str(c, "reason").empty()) {
      return Str(c, "type") + " " + WithMessage(Str(c, "reason"), Str(c, "message"));
    }
  }
  return "";
}

}  // namespace

PodStartState ReadPodStartState(const json& pod) {
  const json status = pod.is_object() ? pod.value("status", json::object()) : json::object();
  const std::string phase = Str(status, "phase").empty() ? "Pending" : Str(status, "phase");
  PodStartState out;
  bool fatal = phase == "Failed" || phase == "Succeeded";
  std::string why = ContainerTrouble(status, &fatal);
  if (why.empty()) why = WithMessage(Str(status, "reason"), Str(status, "message"));
  if (why.empty()) why = FalseCondition(status);
  out.detail = "phase " + phase + (why.empty() ? "" : ": " + why);
  if (fatal) {
    out.kind = PodStartState::kFailed;
  } else if (phase == "Running" && !Str(status, "podIP").empty()) {
    out.kind = PodStartState::kRunning;
    out.ip = Str(status, "podIP");
  }
  return out;
}

}  // namespace agentbox::kubernetes
