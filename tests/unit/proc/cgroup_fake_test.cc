// What the v1 and v2 Cgroup implementations write and read, against a fake cgroupfs.
#include <gtest/gtest.h>

#include "cgroup_fake_fs.h"
#include "proc/cgroup_internal.h"

namespace agentbox {
namespace {

using cgroup_internal::CreateCgroupV1;
using cgroup_internal::CreateCgroupV2;
using testing::FakeCgroupFs;
using testing::RecordingFiles;
using Writes = std::vector<std::pair<std::string, std::string>>;

constexpr const char* kUnlimited = "9223372036854771712\n";

Limits TestLimits() {
  Limits limits;
  limits.memory_bytes = 64 * kMiB;
  limits.pids = 16;
  limits.cpus = 1.5;
  return limits;
}

class CgroupV2FakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_.Put("cgroup.controllers", "cpu memory pids io\n");
    fs_.Put("cgroup.subtree_control", "io\n");
    fs_.Put("agentbox/cgroup.subtree_control");  // a real cgroupfs makes it with the directory
    host_.version = CgroupVersion::kV2;
    host_.v2_parent = fs_.root() + "/agentbox";
  }
  // A real cgroupfs creates these files with the directory; the fake needs them by hand.
  void PutSandboxFiles() {
    for (const char* f : {"memory.max", "memory.swap.max", "pids.max", "cpu.max", "cgroup.procs"}) {
      fs_.Put(std::string("agentbox/sb1/") + f);
    }
  }
  FakeCgroupFs fs_;
  CgroupHost host_;
  RecordingFiles files_;
};

TEST_F(CgroupV2FakeTest, CreateEnablesControllersDownToParent) {
  fs_.Put("agentbox/cgroup.subtree_control");
  auto cg = CreateCgroupV2(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok()) << cg.status().message();
  EXPECT_EQ(files_.writes,
            (Writes{{fs_.root() + "/cgroup.subtree_control", "+memory +pids +cpu"},
                    {fs_.root() + "/agentbox/cgroup.subtree_control", "+memory +pids +cpu"}}));
  EXPECT_TRUE(fs_.Exists("agentbox/sb1"));
  EXPECT_GE((*cg)->DirFd(), 0);
  EXPECT_EQ(CreateCgroupV2(host_, "sb1", files_).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(CreateCgroupV2(host_, "../x", files_).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(CgroupV2FakeTest, SkipsControllersAlreadyEnabled) {
  fs_.Put("cgroup.subtree_control", "cpu memory pids\n");
  fs_.Put("agentbox/cgroup.subtree_control", "memory\n");
  ASSERT_TRUE(CreateCgroupV2(host_, "sb1", files_).ok());
  EXPECT_EQ(files_.writes,
            (Writes{{fs_.root() + "/agentbox/cgroup.subtree_control", "+pids +cpu"}}));
}

TEST_F(CgroupV2FakeTest, ApplyLimitsAndAddProcessWriteExactly) {
  fs_.Put("agentbox/cgroup.subtree_control", "cpu memory pids\n");
  fs_.Put("cgroup.subtree_control", "cpu memory pids\n");
  auto cg = CreateCgroupV2(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok()) << cg.status().message();
  PutSandboxFiles();
  ASSERT_TRUE((*cg)->ApplyLimits(TestLimits()).ok());
  ASSERT_TRUE((*cg)->AddProcess(4242).ok());
  std::string dir = fs_.root() + "/agentbox/sb1/";
  EXPECT_EQ(files_.writes, (Writes{{dir + "memory.max", "67108864"},
                                   {dir + "memory.swap.max", "0"},
                                   {dir + "pids.max", "16"},
                                   {dir + "cpu.max", "150000 100000"},
                                   {dir + "cgroup.procs", "4242"}}));
  EXPECT_EQ(fs_.Get("agentbox/sb1/cpu.max"), "150000 100000");
}

TEST_F(CgroupV2FakeTest, ReadStatsParsesEventsAndCpu) {
  auto cg = CreateCgroupV2(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok());
  fs_.Put("agentbox/sb1/memory.peak", "1234567\n");
  fs_.Put("agentbox/sb1/memory.events", "low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\n");
  fs_.Put("agentbox/sb1/pids.events", "max 3\n");
  fs_.Put("agentbox/sb1/cpu.stat",
          "usage_usec 2500\nuser_usec 2000\nsystem_usec 500\nnr_periods 4\nnr_throttled 2\n");
  auto stats = (*cg)->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->peak_memory_bytes, 1234567u);
  EXPECT_DOUBLE_EQ(stats->cpu_ms, 2.5);
  EXPECT_TRUE(stats->oom_killed && stats->memory_limit_hit && stats->pids_limit_hit &&
              stats->cpu_throttled);

  fs_.Put("agentbox/sb1/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
  fs_.Put("agentbox/sb1/pids.events", "max 0\n");
  fs_.Put("agentbox/sb1/cpu.stat", "usage_usec 10\nnr_throttled 0\n");
  std::filesystem::remove(fs_.root() + "/agentbox/sb1/memory.peak");
  fs_.Put("agentbox/sb1/memory.current", "4096\n");  // kernels before 5.19 have no memory.peak
  stats = (*cg)->ReadStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->peak_memory_bytes, 4096u);
  EXPECT_FALSE(stats->oom_killed || stats->memory_limit_hit || stats->pids_limit_hit ||
               stats->cpu_throttled);
}

// `inspect --verify` compares these with the policy: "max" is no limit, a missing file unknown.
TEST_F(CgroupV2FakeTest, ReadStatsReadsTheLimitsBack) {
  auto cg = CreateCgroupV2(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok());
  fs_.Put("agentbox/sb1/memory.current", "0\n");
  fs_.Put("agentbox/sb1/memory.max", "67108864\n");
  fs_.Put("agentbox/sb1/pids.max", "max\n");
  auto stats = (*cg)->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->memory_limit_bytes, 67108864u);
  EXPECT_EQ(stats->pids_limit, UINT64_MAX);
  std::filesystem::remove(fs_.root() + "/agentbox/sb1/memory.max");
  fs_.Put("agentbox/sb1/pids.max", "16\n");
  stats = (*cg)->ReadStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->memory_limit_bytes, 0u);
  EXPECT_EQ(stats->pids_limit, 16u);
}

TEST_F(CgroupV2FakeTest, LocationReopensTheSameCgroup) {
  auto cg = CreateCgroupV2(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok());
  CgroupLocation location = (*cg)->Location();
  EXPECT_EQ(location, (CgroupLocation{{kUnifiedHierarchy, fs_.root() + "/agentbox/sb1"}}));
  fs_.Put("agentbox/sb1/memory.peak", "8192\n");
  auto reopened = OpenCgroupAt(location);
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  auto stats = (*reopened)->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->peak_memory_bytes, 8192u);
  reopened->reset();
  EXPECT_TRUE(fs_.Exists("agentbox/sb1"));
  EXPECT_EQ(OpenCgroupAt({}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(OpenCgroupAt({{kUnifiedHierarchy, fs_.root() + "/agentbox/gone"}}).ok());
}

TEST_F(CgroupV2FakeTest, KillAllOnEmptyCgroupAndRemove) {
  auto cg = CreateCgroupV2(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok());
  fs_.Put("agentbox/sb1/cgroup.procs", "");
  fs_.Put("agentbox/sb1/cgroup.kill", "");
  EXPECT_TRUE((*cg)->KillAll().ok());
  fs_.ClearFiles("agentbox/sb1");
  EXPECT_TRUE((*cg)->Remove().ok());
  EXPECT_FALSE(fs_.Exists("agentbox/sb1"));
  EXPECT_TRUE(fs_.Exists("agentbox")) << "the shared parent stays";
}

class CgroupV1FakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_.version = CgroupVersion::kV1;
    for (const char* c : {"memory", "pids", "cpu", "cpuacct", "freezer"}) {
      host_.v1_controllers.push_back({c, fs_.root() + "/" + c + "/agentbox"});
      fs_.Put(std::string(c) + "/cgroup.procs");  // the hierarchy's mount point
    }
  }
  void PutSandboxFiles(bool memsw) {
    fs_.Put("memory/agentbox/sb1/memory.limit_in_bytes", kUnlimited);
    if (memsw) fs_.Put("memory/agentbox/sb1/memory.memsw.limit_in_bytes", kUnlimited);
    fs_.Put("pids/agentbox/sb1/pids.max", "max\n");
    fs_.Put("cpu/agentbox/sb1/cpu.cfs_period_us", "100000\n");
    fs_.Put("cpu/agentbox/sb1/cpu.cfs_quota_us", "-1\n");
    for (const char* c : {"memory", "pids", "cpu", "cpuacct", "freezer"}) {
      fs_.Put(std::string(c) + "/agentbox/sb1/cgroup.procs");
    }
  }
  std::string Dir(const std::string& c) { return fs_.root() + "/" + c + "/agentbox/sb1/"; }
  FakeCgroupFs fs_;
  CgroupHost host_;
  RecordingFiles files_;
};

TEST_F(CgroupV1FakeTest, ApplyLimitsWritesMemoryBeforeMemsw) {
  auto cg = CreateCgroupV1(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok()) << cg.status().message();
  PutSandboxFiles(/*memsw=*/true);
  ASSERT_TRUE((*cg)->ApplyLimits(TestLimits()).ok());
  ASSERT_TRUE((*cg)->AddProcess(77).ok());
  Writes want = {{Dir("memory") + "memory.limit_in_bytes", "67108864"},
                 {Dir("memory") + "memory.memsw.limit_in_bytes", "67108864"},
                 {Dir("pids") + "pids.max", "16"},
                 {Dir("cpu") + "cpu.cfs_period_us", "100000"},
                 {Dir("cpu") + "cpu.cfs_quota_us", "150000"}};
  // cgroup.procs of every hierarchy, in the map's (controller name) order.
  for (const char* c : {"cpu", "cpuacct", "freezer", "memory", "pids"}) {
    want.push_back({Dir(c) + "cgroup.procs", "77"});
  }
  EXPECT_EQ(files_.writes, want);
}

TEST_F(CgroupV1FakeTest, RaisingMemoryWritesMemswFirst) {
  auto cg = CreateCgroupV1(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok()) << cg.status().message();
  PutSandboxFiles(/*memsw=*/true);
  fs_.Put("memory/agentbox/sb1/memory.memsw.limit_in_bytes", "1048576\n");
  fs_.Put("memory/agentbox/sb1/memory.limit_in_bytes", "1048576\n");
  ASSERT_TRUE((*cg)->ApplyLimits(TestLimits()).ok());
  ASSERT_GE(files_.writes.size(), 2u);
  EXPECT_EQ(files_.writes[0].first, Dir("memory") + "memory.memsw.limit_in_bytes");
  EXPECT_EQ(files_.writes[1].first, Dir("memory") + "memory.limit_in_bytes");
}

TEST_F(CgroupV1FakeTest, WithoutMemswOnlyTheRamLimit) {
  auto cg = CreateCgroupV1(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok()) << cg.status().message();
  PutSandboxFiles(/*memsw=*/false);
  Status st = (*cg)->ApplyLimits(TestLimits());
  if (!st.ok()) GTEST_SKIP() << "this host has swap on: " << st.message();
  EXPECT_EQ(files_.writes[0], (std::pair<std::string, std::string>{
                                  Dir("memory") + "memory.limit_in_bytes", "67108864"}));
  EXPECT_EQ(files_.writes[1].first, Dir("pids") + "pids.max");
}

TEST_F(CgroupV1FakeTest, CoMountedDirsAreMadeAndJoinedOnce) {
  host_.v1_controllers[2].parent = fs_.root() + "/cpu,cpuacct/agentbox";  // cpu
  host_.v1_controllers[3].parent = fs_.root() + "/cpu,cpuacct/agentbox";  // cpuacct
  auto cg = CreateCgroupV1(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok()) << cg.status().message();
  for (const char* c : {"cpu,cpuacct", "memory", "pids", "freezer"}) {
    fs_.Put(std::string(c) + "/agentbox/sb1/cgroup.procs");
  }
  ASSERT_TRUE((*cg)->AddProcess(5).ok());
  EXPECT_EQ(files_.writes.size(), 4u);
}

TEST_F(CgroupV1FakeTest, ReadStats) {
  auto cg = CreateCgroupV1(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok()) << cg.status().message();
  fs_.Put("memory/agentbox/sb1/memory.max_usage_in_bytes", "8388608\n");
  fs_.Put("memory/agentbox/sb1/memory.failcnt", "12\n");
  fs_.Put("memory/agentbox/sb1/memory.oom_control",
          "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
  fs_.Put("cpuacct/agentbox/sb1/cpuacct.usage", "3500000\n");
  fs_.Put("pids/agentbox/sb1/pids.events", "max 0\n");
  fs_.Put("cpu/agentbox/sb1/cpu.stat", "nr_periods 10\nnr_throttled 4\nthrottled_time 99\n");
  auto stats = (*cg)->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->peak_memory_bytes, 8388608u);
  EXPECT_DOUBLE_EQ(stats->cpu_ms, 3.5);
  EXPECT_TRUE(stats->oom_killed);
  EXPECT_TRUE(stats->memory_limit_hit);
  EXPECT_FALSE(stats->pids_limit_hit);
  EXPECT_TRUE(stats->cpu_throttled);
  EXPECT_EQ(stats->memory_limit_bytes, 0u);  // not written in this fixture: unknown
  fs_.Put("memory/agentbox/sb1/memory.limit_in_bytes", "536870912\n");
  fs_.Put("pids/agentbox/sb1/pids.max", "256\n");
  stats = (*cg)->ReadStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->memory_limit_bytes, 536870912u);
  EXPECT_EQ(stats->pids_limit, 256u);
}

// A sandbox record keeps Location(); OpenCgroupAt reads the same counters from it, with no
// detection of the host's layout.
TEST_F(CgroupV1FakeTest, LocationReopensTheSameCgroup) {
  auto cg = CreateCgroupV1(host_, "sb1", files_);
  ASSERT_TRUE(cg.ok()) << cg.status().message();
  CgroupLocation location = (*cg)->Location();
  EXPECT_EQ(location.size(), 5u);
  EXPECT_EQ(location["memory"], fs_.root() + "/memory/agentbox/sb1");
  EXPECT_EQ(location["pids"], fs_.root() + "/pids/agentbox/sb1");
  fs_.Put("memory/agentbox/sb1/memory.max_usage_in_bytes", "4096\n");
  fs_.Put("pids/agentbox/sb1/pids.events", "max 5\n");
  auto reopened = OpenCgroupAt(location);
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  auto stats = (*reopened)->ReadStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->peak_memory_bytes, 4096u);
  EXPECT_EQ(stats->pids_events, 5u);
  reopened->reset();  // kept: closing it removes nothing
  EXPECT_TRUE(fs_.Exists("memory/agentbox/sb1"));
}

TEST_F(CgroupV1FakeTest, FailedCreateRemovesOnlyWhatItMade) {
  fs_.Put("pids/agentbox/sb1/keep");  // someone else's cgroup of the same name
  auto cg = CreateCgroupV1(host_, "sb1", files_);
  EXPECT_EQ(cg.status().code(), StatusCode::kAlreadyExists) << cg.status().message();
  EXPECT_FALSE(fs_.Exists("memory/agentbox/sb1"));
  EXPECT_TRUE(fs_.Exists("pids/agentbox/sb1/keep"));
}

// An rm killed between hierarchies leaves the cgroup in some of them: OpenCgroup no longer
// finds it whole, and RemoveCgroupRemains takes the rest -- never a cgroup with processes.
TEST_F(CgroupV1FakeTest, RemainsOfAHalfRemovedCgroupAreRemoved) {
  host_.v1_controllers[2].parent = fs_.root() + "/cpu,cpuacct/agentbox";  // cpu
  host_.v1_controllers[3].parent = fs_.root() + "/cpu,cpuacct/agentbox";  // cpuacct
  EXPECT_EQ(CgroupDirs(host_, "sb1").size(), 4u) << "co-mounted hierarchies count once";
  fs_.Put("cpu,cpuacct/agentbox/sb1/cgroup.procs");
  fs_.Put("pids/agentbox/sb1/cgroup.procs", "42\n");
  EXPECT_EQ(OpenCgroup(host_, "sb1").status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(CgroupIsEmpty(host_, "sb1")) << "pid 42 is in the pids hierarchy";
  fs_.Put("pids/agentbox/sb1/cgroup.procs", "");
  EXPECT_TRUE(CgroupIsEmpty(host_, "sb1"));
  fs_.ClearFiles("cpu,cpuacct/agentbox/sb1");  // what a real cgroupfs does on rmdir
  fs_.ClearFiles("pids/agentbox/sb1");
  ASSERT_TRUE(RemoveCgroupRemains(host_, "sb1").ok());
  EXPECT_FALSE(fs_.Exists("cpu,cpuacct/agentbox/sb1"));
  EXPECT_FALSE(fs_.Exists("pids/agentbox/sb1"));
  EXPECT_TRUE(RemoveCgroupRemains(host_, "sb1").ok()) << "nothing left is fine";
  EXPECT_FALSE(RemoveCgroupRemains(host_, "../x").ok());
}

TEST(CgroupParseTest, KeyedValueAndQuota) {
  using cgroup_internal::CpuQuotaMicros;
  using cgroup_internal::KeyedValue;
  EXPECT_EQ(KeyedValue("max 3\n", "max"), 3u);
  EXPECT_EQ(KeyedValue("oom 1\noom_kill 4\n", "oom_kill"), 4u);
  EXPECT_EQ(KeyedValue("oom_kill 4\n", "oom"), std::nullopt);
  EXPECT_EQ(KeyedValue("max x\n", "max"), std::nullopt);
  EXPECT_EQ(KeyedValue("nr_periods 9\nnr_throttled 2", "nr_throttled"), 2u);  // no last newline
  EXPECT_EQ(KeyedValue("  max\t7  extra\n", "max"), 7u);
  EXPECT_EQ(KeyedValue("max\n\nmax 5\n", "max"), 5u);  // a key without a value is skipped
  EXPECT_EQ(KeyedValue("", "max"), std::nullopt);
  EXPECT_EQ(KeyedValue("maxx 1\n", "max"), std::nullopt);
  EXPECT_EQ(CpuQuotaMicros(1), 100000u);
  EXPECT_EQ(CpuQuotaMicros(0.25), 25000u);
  EXPECT_EQ(CpuQuotaMicros(0.001), 1000u);
}

}  // namespace
}  // namespace agentbox
