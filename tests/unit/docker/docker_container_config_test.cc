// Every isolation setting of a docker sandbox, checked in the ContainerCreate body.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "docker/container_config.h"

namespace agentbox::docker {
namespace {

nlohmann::json Body(const SandboxSpec& spec) {
  ContainerInputs in;
  in.id = "0123456789ab";
  in.state_root = "/var/lib/agentbox";
  in.agent_host_path = "/opt/agentbox-agent";
  in.run_host_dir = "/var/lib/agentbox/sandboxes/0123456789ab/run";
  in.workspace_host_path = "/srv/ws";
  in.seccomp_profile_json = R"({"defaultAction":"SCMP_ACT_ALLOW"})";
  in.user = "2100001000:2100001000";
  in.resolv_conf_host_path = "/var/lib/agentbox/sandboxes/0123456789ab/resolv.conf";
  return nlohmann::json::parse(ContainerCreateBody(spec, in));
}

TEST(DockerContainerConfigTest, StrictDefaults) {
  SandboxSpec spec;
  auto j = Body(spec);
  const auto& hc = j["HostConfig"];
  EXPECT_EQ(j["Image"], "agentbox-test:latest");
  EXPECT_EQ(j["User"], "2100001000:2100001000");
  EXPECT_EQ(j["Entrypoint"][0], "/.agentbox/agentbox-agent");
  EXPECT_EQ(j["Cmd"], nlohmann::json({"--listen", "/.agentbox/run/agent.sock"}));
  EXPECT_EQ(j["NetworkDisabled"], true);
  EXPECT_EQ(hc["NetworkMode"], "none");
  EXPECT_EQ(hc["ReadonlyRootfs"], true);
  EXPECT_EQ(hc["IpcMode"], "private");
  EXPECT_EQ(hc["CgroupnsMode"], "private");
  EXPECT_EQ(hc["CapDrop"], nlohmann::json({"ALL"}));
  EXPECT_FALSE(hc.contains("CapAdd"));
  EXPECT_EQ(hc["Privileged"], false);
  EXPECT_EQ(hc["SecurityOpt"][0], "no-new-privileges");
  EXPECT_EQ(hc["SecurityOpt"][1], "seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\"}");
  EXPECT_EQ(hc["Memory"], 512 * kMiB);
  EXPECT_EQ(hc["MemorySwap"], hc["Memory"]);
  EXPECT_EQ(hc["PidsLimit"], 256);
  EXPECT_EQ(hc["NanoCpus"], 1000000000);
  EXPECT_EQ(hc["Init"], false);
  EXPECT_EQ(hc["Tmpfs"]["/tmp"], "rw,nosuid,nodev,size=268435456,mode=1777");
  EXPECT_EQ(
      hc["Binds"],
      nlohmann::json({"/opt/agentbox-agent:/.agentbox/agentbox-agent:ro",
                      "/var/lib/agentbox/sandboxes/0123456789ab/run:/.agentbox/run",
                      "/srv/ws:/workspace",
                      // names the agent's DNS catcher
                      "/var/lib/agentbox/sandboxes/0123456789ab/resolv.conf:/etc/resolv.conf:ro"}));
  EXPECT_FALSE(hc.contains("Runtime"));
  EXPECT_EQ(j["Labels"]["io.agentbox.managed"], "1");
  EXPECT_EQ(j["Labels"]["io.agentbox.id"], "0123456789ab");
  EXPECT_EQ(j["Labels"]["io.agentbox.state-dir"], "/var/lib/agentbox");
  bool has_path = false;
  for (const auto& e : j["Env"]) has_path |= e.get<std::string>().rfind("PATH=", 0) == 0;
  EXPECT_TRUE(has_path);
}

// A workspace whose limit the kernel holds: the agent is told to report refused allocations.
TEST(DockerContainerConfigTest, DiskWatchGoesBeforeListen) {
  SandboxSpec spec;
  docker::ContainerInputs in;
  in.id = "0123456789ab";
  in.disk_watch = true;
  auto j = nlohmann::json::parse(ContainerCreateBody(spec, in));
  EXPECT_EQ(j["Cmd"], nlohmann::json({"--disk-watch", "--listen", "/.agentbox/run/agent.sock"}));
}

// An image's user: the agent maps the container's id to it (agent/container_setup.h).
TEST(DockerContainerConfigTest, AnImagesUserIsPassedToTheAgent) {
  SandboxSpec spec;
  spec.user = SandboxUser{1001, 50};
  docker::ContainerInputs in;
  in.id = "0123456789ab";
  auto j = nlohmann::json::parse(ContainerCreateBody(spec, in));
  EXPECT_EQ(j["Cmd"],
            nlohmann::json({"--user", "1001:50", "--listen", "/.agentbox/run/agent.sock"}));
}

// random_seed: the agent answers each exec's getrandom from the seed (proc/getrandom_watch.h).
TEST(DockerContainerConfigTest, ARandomSeedIsPassedToTheAgent) {
  SandboxSpec spec;
  spec.random_seed = 42;
  docker::ContainerInputs in;
  in.id = "0123456789ab";
  auto j = nlohmann::json::parse(ContainerCreateBody(spec, in));
  EXPECT_EQ(j["Cmd"],
            nlohmann::json({"--random-seed", "42", "--listen", "/.agentbox/run/agent.sock"}));
}

TEST(DockerContainerConfigTest, LimitsAndRuntimeFollowTheSpec) {
  SandboxSpec spec;
  spec.limits.memory_bytes = 64 * kMiB;
  spec.limits.pids = 32;
  spec.limits.cpus = 0.5;
  spec.open_files = 99;
  spec.runtime = "runsc";
  spec.image = "img:1";
  spec.env = {{"A", "1"}};
  auto j = Body(spec);
  const auto& hc = j["HostConfig"];
  EXPECT_EQ(j["Image"], "img:1");
  EXPECT_EQ(hc["Memory"], 64 * kMiB);
  EXPECT_EQ(hc["MemorySwap"], 64 * kMiB);
  EXPECT_EQ(hc["PidsLimit"], 32);
  EXPECT_EQ(hc["NanoCpus"], 500000000);
  EXPECT_EQ(hc["Runtime"], "runsc");
  EXPECT_EQ(hc["Ulimits"][0], nlohmann::json({{"Name", "nofile"}, {"Soft", 99}, {"Hard", 99}}));
  bool has_a = false;  // per exec, from the request: not baked into the container
  for (const auto& e : j["Env"]) has_a |= e == "A=1";
  EXPECT_FALSE(has_a);
}

}  // namespace
}  // namespace agentbox::docker
