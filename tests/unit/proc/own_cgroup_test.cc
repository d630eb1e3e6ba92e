// The agent's reading of its own cgroup from inside a container (proc/own_cgroup.h): where it
// is, from mountinfo and /proc/self/cgroup texts as runtimes show them, and what its files say,
// from fixture trees laid out as cgroup v2 and v1 show a container's cgroup.
#include "proc/own_cgroup.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "temp_tree.h"

namespace agentbox {
namespace {

// podman 4.3 on this cgroup v1 host (measured: `podman run` and `podman kube play` alike): each
// hierarchy's /sys/fs/cgroup/CONTROLLER is the container's own directory, no cgroup namespace.
constexpr const char* kPodmanV1Cgroup =
    "9:name=systemd:/libpod_parent/libpod-cbd0\n"
    "8:pids:/libpod_parent/libpod-cbd0\n"
    "4:memory:/libpod_parent/libpod-cbd0\n"
    "2:cpuacct:/libpod_parent/libpod-cbd0\n"
    "1:cpu:/libpod_parent/libpod-cbd0\n"
    "0::/libpod_parent/libpod-cbd0\n";
constexpr const char* kPodmanV1Mounts =
    "105 98 0:61 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs rw,mode=755\n"
    "106 105 0:29 /libpod_parent/libpod-cbd0 /sys/fs/cgroup/cpu ro,nosuid - cgroup cgroup rw,cpu\n"
    "107 105 0:30 /libpod_parent/libpod-cbd0 /sys/fs/cgroup/cpuacct ro - cgroup cgroup rw,cpuacct\n"
    "109 105 0:32 /libpod_parent/libpod-cbd0 /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n"
    "113 105 0:36 /libpod_parent/libpod-cbd0 /sys/fs/cgroup/pids ro - cgroup cgroup rw,pids\n";

TEST(OwnCgroupTest, PodmanOnCgroupV1) {
  auto loc = OwnCgroupLocation(kPodmanV1Mounts, kPodmanV1Cgroup);
  ASSERT_TRUE(loc.ok()) << loc.status().message();
  EXPECT_EQ(*loc, (CgroupLocation{{"memory", "/sys/fs/cgroup/memory"},
                                  {"pids", "/sys/fs/cgroup/pids"},
                                  {"cpu", "/sys/fs/cgroup/cpu"},
                                  {"cpuacct", "/sys/fs/cgroup/cpuacct"}}));
}

TEST(OwnCgroupTest, CoMountedV1AndAMissingHierarchy) {
  // docker's layout: cpu and cpuacct share "cpu,cpuacct"; no pids hierarchy at all.
  const char* mounts =
      "30 25 0:26 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n"
      "31 25 0:27 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n";
  const char* self = "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n";
  auto loc = OwnCgroupLocation(mounts, self);
  ASSERT_TRUE(loc.ok()) << loc.status().message();
  EXPECT_EQ(loc->at("cpu"), "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(loc->at("cpuacct"), "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(loc->at("memory"), "/sys/fs/cgroup/memory");
  EXPECT_EQ(loc->at("pids"), "/sys/fs/cgroup/pids");  // absent: reads as missing
}

TEST(OwnCgroupTest, V2WithACgroupNamespace) {
  // containerd and CRI-O on cgroup v2: the container's cgroup is the namespace's root.
  const char* mounts = "40 30 0:27 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n";
  auto loc = OwnCgroupLocation(mounts, "0::/\n");
  ASSERT_TRUE(loc.ok());
  EXPECT_EQ(*loc, (CgroupLocation{{kUnifiedHierarchy, "/sys/fs/cgroup"}}));
  // A process in a child cgroup of the namespace's root, and one outside it ("/.." paths).
  EXPECT_EQ(OwnCgroupLocation(mounts, "0::/sub\n")->at(kUnifiedHierarchy), "/sys/fs/cgroup/sub");
  EXPECT_EQ(OwnCgroupLocation(mounts, "0::/../other\n")->at(kUnifiedHierarchy), "/sys/fs/cgroup");
}

TEST(OwnCgroupTest, V2WithoutANamespace) {
  // The whole hierarchy mounted: the path from its root.
  const char* mounts = "40 30 0:27 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n";
  auto loc = OwnCgroupLocation(mounts, "0::/kubepods/pod1/c2\n");
  ASSERT_TRUE(loc.ok());
  EXPECT_EQ(loc->at(kUnifiedHierarchy), "/sys/fs/cgroup/kubepods/pod1/c2");
}

TEST(OwnCgroupTest, NoCgroupMounted) {
  auto loc = OwnCgroupLocation("20 1 0:5 / /proc rw - proc proc rw\n", "0::/\n");
  EXPECT_EQ(loc.status().code(), StatusCode::kNotFound);
}

TEST(OwnCgroupTest, ReadsAV2Fixture) {
  TempTree t;
  t.Write("memory.peak", "73400320\n");
  t.Write("memory.max", "134217728\n");
  t.Write("memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n");
  t.Write("pids.max", "max\n");
  t.Write("pids.events", "max 2\n");
  t.Write("cpu.stat", "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\nnr_throttled 3\n");
  auto cgroup = OpenCgroupAt({{kUnifiedHierarchy, t.root()}});
  ASSERT_TRUE(cgroup.ok());
  auto stats = (*cgroup)->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->peak_memory_bytes, 73400320u);
  EXPECT_EQ(stats->memory_limit_bytes, 134217728u);
  EXPECT_EQ(stats->pids_limit, UINT64_MAX);  // "max": no limit
  EXPECT_EQ(stats->oom_kills, 1u);
  EXPECT_EQ(stats->memory_events, 5u);  // max + oom
  EXPECT_EQ(stats->pids_events, 2u);
  EXPECT_EQ(stats->throttled_periods, 3u);
  EXPECT_DOUBLE_EQ(stats->cpu_ms, 1.5);
}

TEST(OwnCgroupTest, AV1FixtureWithMissingFilesReadsZero) {
  TempTree t;
  t.Mkdir("memory");
  t.Mkdir("pids");
  t.Write("memory/memory.max_usage_in_bytes", "4345856\n");
  t.Write("memory/memory.limit_in_bytes", "67108864\n");
  t.Write("pids/pids.max", "100\n");
  // No cpu, cpuacct hierarchies, no failcnt, oom_control or pids.events: those read 0.
  auto cgroup = OpenCgroupAt({{"memory", t.Path("memory")},
                              {"pids", t.Path("pids")},
                              {"cpu", t.Path("cpu")},
                              {"cpuacct", t.Path("cpuacct")}});
  ASSERT_TRUE(cgroup.ok());
  auto stats = (*cgroup)->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->peak_memory_bytes, 4345856u);
  EXPECT_EQ(stats->memory_limit_bytes, 67108864u);
  EXPECT_EQ(stats->pids_limit, 100u);
  EXPECT_EQ(stats->pids_events, 0u);
  EXPECT_EQ(stats->cpu_ms, 0);
}

}  // namespace
}  // namespace agentbox
