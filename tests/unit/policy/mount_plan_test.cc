#include "policy/mount_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace agentbox {
namespace {

MountPlanInput DefaultInput() {
  MountPlanInput in;
  in.root_source = "/";
  in.root_entries = {{"usr", RootEntry::Type::kDirectory, ""},
                     {"bin", RootEntry::Type::kSymlink, "usr/bin"},
                     {"home", RootEntry::Type::kDirectory, ""},
                     {"var", RootEntry::Type::kDirectory, ""},
                     {"etc", RootEntry::Type::kDirectory, ""}};
  in.host_etc_entries = {"ld.so.cache", "shadow", "alternatives"};
  in.tmp_bytes = 256 * kMiB;
  in.shm_bytes = 64 * kMiB;
  return in;
}

// The op that mounts something at target (not a mere mount point directory).
const MountOp* Find(const MountPlan& plan, const std::string& target) {
  for (const auto& op : plan.ops) {
    if (op.target == target && op.kind != MountKind::kDir) return &op;
  }
  return nullptr;
}

TEST(MountPlanTest, DefaultRootTakesOnlyAllowlistedHostDirs) {
  MountPlan plan = BuildMountPlan(DefaultInput());
  ASSERT_NE(Find(plan, "/usr"), nullptr);
  EXPECT_EQ(Find(plan, "/usr")->kind, MountKind::kBindReadOnly);
  EXPECT_EQ(Find(plan, "/usr")->source, "/usr");
  ASSERT_NE(Find(plan, "/bin"), nullptr);
  EXPECT_EQ(Find(plan, "/bin")->kind, MountKind::kSymlink);
  EXPECT_EQ(Find(plan, "/bin")->source, "usr/bin");
  EXPECT_EQ(Find(plan, "/home"), nullptr);
  EXPECT_EQ(Find(plan, "/var"), nullptr);
  for (const auto& op : plan.ops) {
    if (op.kind == MountKind::kBindReadOnly) {
      for (const char* forbidden : {"/home", "/root", "/run", "/var", "/tmp"}) {
        EXPECT_NE(op.source.rfind(forbidden, 0), 0u) << op.source;
      }
      EXPECT_NE(op.source, "/");
    }
  }
}

TEST(MountPlanTest, EtcIsGeneratedAndOnlyAllowlistedEntriesBound) {
  MountPlan plan = BuildMountPlan(DefaultInput());
  ASSERT_NE(Find(plan, "/etc"), nullptr);
  EXPECT_EQ(Find(plan, "/etc")->kind, MountKind::kTmpfs);
  ASSERT_NE(Find(plan, "/etc/passwd"), nullptr);
  EXPECT_EQ(Find(plan, "/etc/passwd")->kind, MountKind::kFile);
  EXPECT_NE(Find(plan, "/etc/ld.so.cache"), nullptr);
  EXPECT_EQ(Find(plan, "/etc/shadow"), nullptr);
}

TEST(MountPlanTest, WritableTmpfsAreCappedAndRootEndsReadOnly) {
  MountPlan plan = BuildMountPlan(DefaultInput());
  ASSERT_NE(Find(plan, "/tmp"), nullptr);
  EXPECT_EQ(Find(plan, "/tmp")->size, 256 * kMiB);
  EXPECT_EQ(Find(plan, "/tmp")->mode, 01777u);
  ASSERT_NE(Find(plan, "/dev/shm"), nullptr);
  EXPECT_EQ(Find(plan, "/dev/shm")->size, 64 * kMiB);
  EXPECT_EQ(plan.ops.back().kind, MountKind::kReadOnly);
  EXPECT_EQ(plan.ops.back().target, "/");
  EXPECT_NE(Find(plan, "/workspace"), nullptr);
}

TEST(MountPlanTest, DevHoldsOnlyTheMinimalNodes) {
  MountPlan plan = BuildMountPlan(DefaultInput());
  std::vector<std::string> devices;
  for (const auto& op : plan.ops) {
    if (op.kind == MountKind::kDevice) devices.push_back(op.target);
  }
  EXPECT_EQ(devices, (std::vector<std::string>{"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                               "/dev/urandom", "/dev/tty"}));
}

// The box's /proc and each native exec's own /proc (agent/exec_in_namespaces.cc) are both
// ProcMounts(): the box's plan holds that list, in order, with its masks.
TEST(MountPlanTest, ProcIsTheOneSharedListWithItsMasks) {
  const std::vector<MountOp> proc = ProcMounts();
  ASSERT_FALSE(proc.empty());
  EXPECT_EQ(proc.front().kind, MountKind::kProc);
  auto has = [&](MountKind kind, const std::string& target) {
    return std::any_of(proc.begin(), proc.end(),
                       [&](const MountOp& op) { return op.kind == kind && op.target == target; });
  };
  EXPECT_TRUE(has(MountKind::kBindSelfReadOnly, "/proc/sys"));
  EXPECT_TRUE(has(MountKind::kMaskFile, "/proc/sysrq-trigger"));
  EXPECT_TRUE(has(MountKind::kMaskFile, "/proc/kcore"));
  // runc's and Docker's defaults, at least.
  for (const char* file : {"/proc/keys", "/proc/latency_stats", "/proc/timer_list",
                           "/proc/timer_stats", "/proc/sched_debug"}) {
    EXPECT_TRUE(has(MountKind::kMaskFile, file)) << file;
  }
  for (const char* dir : {"/proc/acpi", "/proc/asound", "/proc/scsi"}) {
    EXPECT_TRUE(has(MountKind::kMaskDir, dir)) << dir;
  }
  for (const char* dir : {"/proc/bus", "/proc/fs", "/proc/irq"}) {
    EXPECT_TRUE(has(MountKind::kBindSelfReadOnly, dir)) << dir;
  }
  MountPlan plan = BuildMountPlan(DefaultInput());
  auto at = std::find_if(plan.ops.begin(), plan.ops.end(),
                         [](const MountOp& op) { return op.kind == MountKind::kProc; });
  ASSERT_NE(at, plan.ops.end());
  ASSERT_GE(static_cast<size_t>(plan.ops.end() - at), proc.size());
  for (size_t i = 0; i < proc.size(); ++i) {
    EXPECT_EQ(at[i].kind, proc[i].kind) << i;
    EXPECT_EQ(at[i].target, proc[i].target) << i;
  }
}

TEST(MountPlanTest, CustomRootfsBindsItsEntriesButNotReservedOnes) {
  MountPlanInput in;
  in.root_source = "/srv/rootfs";
  in.custom_rootfs = true;
  in.root_entries = {{"etc", RootEntry::Type::kDirectory, ""},
                     {"proc", RootEntry::Type::kDirectory, ""},
                     {"bin", RootEntry::Type::kDirectory, ""}};
  MountPlan plan = BuildMountPlan(in);
  ASSERT_NE(Find(plan, "/etc"), nullptr);
  EXPECT_EQ(Find(plan, "/etc")->kind, MountKind::kBindReadOnly);
  EXPECT_EQ(Find(plan, "/etc")->source, "/srv/rootfs/etc");
  EXPECT_EQ(Find(plan, "/proc")->kind, MountKind::kProc);
  EXPECT_EQ(Find(plan, "/etc/passwd"), nullptr);
}

}  // namespace
}  // namespace agentbox

namespace agentbox {
namespace {

TEST(MountPlan, AnImageRootIsOneTreeUnderTheUsualMounts) {
  MountPlanInput in;
  in.image_root = true;
  in.custom_rootfs = true;
  in.tmp_bytes = 256 * kMiB;
  in.shm_bytes = 64 * kMiB;
  MountPlan plan = BuildMountPlan(in);
  ASSERT_FALSE(plan.ops.empty());
  EXPECT_EQ(plan.ops.front().kind, MountKind::kRootTree);
  EXPECT_EQ(plan.ops.front().target, "/");
  for (const MountOp& op : plan.ops) {
    EXPECT_NE(op.kind, MountKind::kBindReadOnly) << op.target;  // nothing of the host's
    EXPECT_NE(op.target, "/etc") << "an image brings its own /etc";
  }
  EXPECT_EQ(plan.ops.back().kind, MountKind::kReadOnly);
}

}  // namespace
}  // namespace agentbox
