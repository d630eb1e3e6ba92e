// A sandbox pod's way to Running, and the one phrase that says why it is not there.
#include "kubernetes/pod_state.h"

#include <gtest/gtest.h>

namespace agentbox::kubernetes {
namespace {

using nlohmann::json;

PodStartState Read(const std::string& status) {
  return ReadPodStartState(
      {{"metadata", {{"name", "agentbox-x"}}}, {"status", json::parse(status)}});
}

TEST(PodStartState, RunningWithIp) {
  auto s = Read(R"({"phase":"Running","podIP":"10.200.1.5"})");
  EXPECT_EQ(s.kind, PodStartState::kRunning);
  EXPECT_EQ(s.ip, "10.200.1.5");
  // Running but no IP yet: still starting.
  EXPECT_EQ(Read(R"({"phase":"Running"})").kind, PodStartState::kStarting);
  EXPECT_EQ(ReadPodStartState(json::object()).detail, "phase Pending");
}

TEST(PodStartState, PendingSaysWhy) {
  auto s = Read(R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
      "reason":"Unschedulable","message":"0/3 nodes are available"}]})");
  EXPECT_EQ(s.kind, PodStartState::kStarting);
  EXPECT_EQ(s.detail, "phase Pending: PodScheduled Unschedulable: 0/3 nodes are available");
  s = Read(R"({"phase":"Pending","containerStatuses":[{"name":"sandbox",
      "state":{"waiting":{"reason":"ContainerCreating"}}}]})");
  EXPECT_EQ(s.kind, PodStartState::kStarting);
  EXPECT_EQ(s.detail, "phase Pending");
}

TEST(PodStartState, ImagePullBackOffFailsAtOnce) {
  auto s = Read(R"({"phase":"Pending","initContainerStatuses":[{"name":"agent-install",
      "state":{"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image"}}}]})");
  EXPECT_EQ(s.kind, PodStartState::kFailed);
  EXPECT_EQ(s.detail,
            "phase Pending: container agent-install ImagePullBackOff: Back-off pulling image");
  // ErrImagePull is retried by the kubelet (it becomes ImagePullBackOff): not yet final.
  EXPECT_EQ(Read(R"({"phase":"Pending","containerStatuses":[{"name":"sandbox",
      "state":{"waiting":{"reason":"ErrImagePull"}}}]})")
                .kind,
            PodStartState::kStarting);
}

TEST(PodStartState, EndedPodsAndExitedContainers) {
  auto s = Read(R"({"phase":"Failed","reason":"DeadlineExceeded","message":"too long"})");
  EXPECT_EQ(s.kind, PodStartState::kFailed);
  EXPECT_EQ(s.detail, "phase Failed: DeadlineExceeded: too long");
  s = Read(R"({"phase":"Pending","initContainerStatuses":[{"name":"agent-install",
      "state":{"terminated":{"exitCode":1,"reason":"Error"}}}]})");
  EXPECT_EQ(s.kind, PodStartState::kFailed);
  EXPECT_EQ(s.detail, "phase Pending: container agent-install exited 1 (Error)");
  EXPECT_EQ(Read(R"({"phase":"Succeeded"})").kind, PodStartState::kFailed);
}

}  // namespace
}  // namespace agentbox::kubernetes
