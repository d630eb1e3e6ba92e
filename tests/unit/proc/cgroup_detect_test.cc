#include <gtest/gtest.h>

#include "cgroup_fake_fs.h"
#include "proc/cgroup_internal.h"

namespace agentbox {
namespace {

using cgroup_internal::DetectCgroupHostFrom;
using cgroup_internal::DetectInput;
using testing::FakeCgroupFs;

// One mountinfo line for a cgroup mount at `mount_point`.
std::string MountLine(int id, const std::string& mount_point, const std::string& type,
                      const std::string& opts) {
  return std::to_string(id) + " 30 0:" + std::to_string(id) + " / " + mount_point +
         " rw,relatime shared:9 - " + type + " " + type + " " + opts + "\n";
}

class CgroupDetectTest : public ::testing::Test {
 protected:
  // cgroup v1 hierarchies as on this project's CI host: a tmpfs with one dir per controller.
  DetectInput V1Host(bool with_memsw = true) {
    DetectInput in = Input();
    in.mountinfo = MountLine(30, fs_.root(), "tmpfs", "rw,mode=755");
    int id = 31;
    for (std::string c : {"cpu", "cpuacct", "memory", "freezer", "pids"}) {
      std::string dir = fs_.root() + "/" + c;
      in.mountinfo += MountLine(id++, dir, "cgroup", "rw," + c);
      fs_.Put(c + "/cgroup.procs");
    }
    fs_.Put("memory/memory.limit_in_bytes", "9223372036854771712\n");
    if (with_memsw) fs_.Put("memory/memory.memsw.limit_in_bytes", "9223372036854771712\n");
    return in;
  }
  DetectInput V2Host(const std::string& controllers) {
    DetectInput in = Input();
    in.mountinfo = MountLine(30, fs_.root(), "cgroup2", "rw,nsdelegate");
    fs_.Put("cgroup.controllers", controllers + "\n");
    fs_.Put("cgroup.subtree_control");
    return in;
  }
  DetectInput Input() {
    DetectInput in;
    in.sysfs_root = fs_.root();
    in.self_cgroup = "0::/\n";
    in.is_root = true;
    return in;
  }
  FakeCgroupFs fs_;
};

TEST_F(CgroupDetectTest, V2WithAllControllers) {
  auto host = DetectCgroupHostFrom(V2Host("cpuset cpu io memory hugetlb pids rdma misc"));
  ASSERT_TRUE(host.ok()) << host.status().message();
  EXPECT_EQ(host->version, CgroupVersion::kV2);
  EXPECT_EQ(host->v2_parent, fs_.root() + "/agentbox");
  EXPECT_FALSE(fs_.Exists("agentbox")) << "detection must create nothing";
}

TEST_F(CgroupDetectTest, V2MissingControllerIsNamed) {
  auto host = DetectCgroupHostFrom(V2Host("cpu io memory"));
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(host.status().message().find("pids"), std::string::npos) << host.status().message();
}

TEST_F(CgroupDetectTest, V2ParentOverride) {
  DetectInput in = V2Host("cpu memory pids");
  in.parent_override = "/ci/agentbox-test/";
  auto host = DetectCgroupHostFrom(in);
  ASSERT_TRUE(host.ok()) << host.status().message();
  EXPECT_EQ(host->v2_parent, fs_.root() + "/ci/agentbox-test");
  in.parent_override = "a/../../etc";
  EXPECT_EQ(DetectCgroupHostFrom(in).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(CgroupDetectTest, V2NonRootUsesOwnCgroupOrExplains) {
  DetectInput in = V2Host("cpu memory pids");
  in.is_root = false;
  in.self_cgroup = "0::/user.slice/app.scope\n";
  fs_.Put("user.slice/app.scope/cgroup.controllers", "memory pids\n");
  fs_.Put("user.slice/app.scope/cgroup.subtree_control");
  auto host = DetectCgroupHostFrom(in);
  ASSERT_FALSE(host.ok());  // cpu not delegated
  EXPECT_NE(host.status().message().find("cpu controller"), std::string::npos)
      << host.status().message();
  fs_.Put("user.slice/app.scope/cgroup.controllers", "cpu memory pids\n");
  host = DetectCgroupHostFrom(in);
  ASSERT_TRUE(host.ok()) << host.status().message();  // we own the temp dir, so it is writable
  EXPECT_EQ(host->v2_parent, fs_.root() + "/user.slice/app.scope");
}

TEST_F(CgroupDetectTest, V1AllHierarchies) {
  auto host = DetectCgroupHostFrom(V1Host());
  ASSERT_TRUE(host.ok()) << host.status().message();
  EXPECT_EQ(host->version, CgroupVersion::kV1);
  ASSERT_EQ(host->v1_controllers.size(), 5u);
  for (const auto& c : host->v1_controllers) {
    EXPECT_EQ(c.parent, fs_.root() + "/" + c.name + "/agentbox");
  }
}

TEST_F(CgroupDetectTest, V1CoMountedCpuCpuacct) {
  DetectInput in = Input();
  in.mountinfo = MountLine(31, fs_.root() + "/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct") +
                 MountLine(32, fs_.root() + "/memory", "cgroup", "rw,memory") +
                 MountLine(33, fs_.root() + "/pids", "cgroup", "rw,pids") +
                 MountLine(34, fs_.root() + "/freezer", "cgroup", "rw,freezer");
  fs_.Put("memory/memory.limit_in_bytes", "1");
  auto host = DetectCgroupHostFrom(in);
  ASSERT_TRUE(host.ok()) << host.status().message();
  for (const auto& c : host->v1_controllers) {
    if (c.name == "cpu" || c.name == "cpuacct") {
      EXPECT_EQ(c.parent, fs_.root() + "/cpu,cpuacct/agentbox");
    }
  }
}

TEST_F(CgroupDetectTest, HybridPrefersV1WhenUnifiedHasNoControllers) {
  DetectInput in = V1Host();
  in.mountinfo += MountLine(40, fs_.root() + "/unified", "cgroup2", "rw");
  fs_.Put("unified/cgroup.controllers", "hugetlb\n");
  auto host = DetectCgroupHostFrom(in);
  ASSERT_TRUE(host.ok()) << host.status().message();
  EXPECT_EQ(host->version, CgroupVersion::kV1);
}

TEST_F(CgroupDetectTest, V1MissingHierarchyIsNamed) {
  DetectInput in = V1Host();
  in.mountinfo = in.mountinfo.substr(0, in.mountinfo.find(" " + fs_.root() + "/pids "));
  in.mountinfo = in.mountinfo.substr(0, in.mountinfo.rfind('\n') + 1);
  auto host = DetectCgroupHostFrom(in);
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(host.status().message().find("pids"), std::string::npos) << host.status().message();
}

TEST_F(CgroupDetectTest, V1WithoutMemswNeedsNoSwap) {
  DetectInput in = V1Host(/*with_memsw=*/false);
  EXPECT_TRUE(DetectCgroupHostFrom(in).ok()) << "no swap: the RAM limit is the whole guarantee";
  in.swap_enabled = true;
  auto host = DetectCgroupHostFrom(in);
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.status().message().find("swapaccount=1"), std::string::npos);
}

TEST_F(CgroupDetectTest, V1NonRootRefused) {
  DetectInput in = V1Host();
  in.is_root = false;
  EXPECT_EQ(DetectCgroupHostFrom(in).status().code(), StatusCode::kUnavailable);
}

TEST_F(CgroupDetectTest, NothingMounted) {
  auto host = DetectCgroupHostFrom(Input());
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().code(), StatusCode::kUnavailable);
}

TEST(CgroupSwapTest, ParsesProcSwaps) {
  using cgroup_internal::SwapEnabled;
  EXPECT_FALSE(SwapEnabled("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"));
  EXPECT_TRUE(SwapEnabled("Filename Type Size Used Priority\n/swapfile file 1024 0 -2\n"));
  EXPECT_FALSE(SwapEnabled(""));
}

}  // namespace
}  // namespace agentbox
