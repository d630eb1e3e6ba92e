// The child's mount executor, run against a recording fake of its syscalls: no root, no
// namespace. What each kind of op asks of the kernel, in the plan's order, and how a failure is
// reported.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include "policy/mount_plan.h"
#include "proc/child_steps.h"
#include "proc/mount_syscalls.h"

namespace agentbox {
namespace {

std::vector<std::string> calls;
std::set<std::string> absent;
std::string fail_at;  // a mount onto this target fails with EPERM

std::string Flags(unsigned long f) {
  std::string s;
  for (auto [bit, name] : {std::pair{MS_RDONLY, "ro"},
                           {MS_NOSUID, "nosuid"},
                           {MS_NODEV, "nodev"},
                           {MS_NOEXEC, "noexec"},
                           {MS_BIND, "bind"},
                           {MS_REC, "rec"}}) {
    if (f & bit) s += std::string(s.empty() ? "" : ",") + name;
  }
  return s;
}

const MountSyscalls kRecording = {
    [](const char* source, const char* target, const char* fstype, unsigned long flags,
       const void* data) {
      calls.push_back(std::string("mount ") + source + " " + target + " " +
                      (fstype ? fstype : "-") + " " + Flags(flags) + " " +
                      (data ? static_cast<const char*>(data) : "-"));
      if (fail_at == target) {
        errno = EPERM;
        return -1;
      }
      return 0;
    },
    [](int from, const char*, int, const char* to, unsigned) {
      calls.push_back("move_mount " + std::to_string(from) + " " + to);
      return 0;
    },
    [](int, const char* path, unsigned flags, struct mount_attr* attr) {
      calls.push_back(std::string("setattr ") + path +
                      (attr->attr_set & MOUNT_ATTR_RDONLY ? " ro" : "") +
                      (flags & AT_RECURSIVE ? " rec" : ""));
      return 0;
    },
    [](const char* path, mode_t) {
      calls.push_back(std::string("mkdir ") + path);
      return 0;
    },
    [](const char* path, int, mode_t) {
      calls.push_back(std::string("open ") + path);
      return 1000;
    },
    [](int, const void*, size_t size) { return static_cast<ssize_t>(size); },
    [](int) { return 0; },
    [](const char* target, const char* link) {
      calls.push_back(std::string("symlink ") + link + " -> " + target);
      return 0;
    },
    [](const char* path, int) {
      if (absent.contains(path)) {
        errno = ENOENT;
        return -1;
      }
      return 0;
    },
};

MountPlanInput Input() {
  MountPlanInput in;
  in.root_source = "/";
  in.root_entries = {{"usr", RootEntry::Type::kDirectory, ""},
                     {"bin", RootEntry::Type::kSymlink, "usr/bin"}};
  in.host_etc_entries = {"ld.so.cache"};
  in.tmp_bytes = 1 << 20;
  in.shm_bytes = 1 << 20;
  return in;
}

// The plan as the parent fills it (native/launch.cc): targets under the new root, a tree fd
// (100 + op index) for every op that attaches one.
struct Fixture {
  MountPlan mounts = BuildMountPlan(Input());
  ChildPlan plan;
  int error_pipe[2] = {-1, -1};

  Fixture() {
    calls.clear();
    absent.clear();
    fail_at.clear();
    plan.box.mounts = &mounts;
    for (size_t i = 0; i < mounts.ops.size(); ++i) {
      const MountOp& op = mounts.ops[i];
      plan.box.full_targets.push_back(std::string(kNewRootMountpoint) +
                                  (op.target == "/" ? "" : op.target));
      plan.box.tmpfs_options.push_back(op.kind == MountKind::kTmpfs ? "size=1m" : "");
      bool tree = op.kind == MountKind::kBindReadOnly || op.kind == MountKind::kDevice ||
                  op.kind == MountKind::kWorkspace;
      plan.box.source_trees.push_back(tree ? 100 + static_cast<int>(i) : -1);
      plan.box.source_is_dir.push_back(op.kind != MountKind::kDevice);
    }
    plan.box.dev_null_path = std::string(kNewRootMountpoint) + "/dev/null";
    plan.box.mount_syscalls = &kRecording;
    EXPECT_EQ(::pipe2(error_pipe, O_CLOEXEC), 0);
    plan.error_write = error_pipe[1];
  }
  ~Fixture() {
    ::close(error_pipe[0]);
    ::close(error_pipe[1]);
  }
  bool Called(const std::string& call) const {
    return std::find(calls.begin(), calls.end(), call) != calls.end();
  }
  size_t IndexOf(const std::string& call) const {
    return static_cast<size_t>(std::find(calls.begin(), calls.end(), call) - calls.begin());
  }
};

TEST(MountOpsTest, EachKindAsksTheKernelForWhatItShould) {
  Fixture f;
  ASSERT_TRUE(ExecuteMountPlan(f.plan));
  // A system directory: the parent's detached tree (read-only already) moved into place.
  EXPECT_TRUE(f.Called("mkdir /tmp/usr"));
  auto usr = std::find_if(f.mounts.ops.begin(), f.mounts.ops.end(),
                          [](const MountOp& op) { return op.target == "/usr"; });
  EXPECT_TRUE(
      f.Called("move_mount " + std::to_string(100 + (usr - f.mounts.ops.begin())) + " /tmp/usr"));
  EXPECT_TRUE(f.Called("symlink /tmp/bin -> usr/bin"));
  EXPECT_TRUE(f.Called("mount tmpfs /tmp/tmp tmpfs nosuid,nodev size=1m"));
  EXPECT_TRUE(f.Called("mount proc /tmp/proc proc nosuid,nodev,noexec -"));
  // /proc's masks, after /proc itself.
  EXPECT_LT(f.IndexOf("mount proc /tmp/proc proc nosuid,nodev,noexec -"),
            f.IndexOf("mount /tmp/proc/sys /tmp/proc/sys - bind,rec -"));
  EXPECT_TRUE(f.Called("setattr /tmp/proc/sys ro rec"));
  EXPECT_TRUE(f.Called("mount /tmp/dev/null /tmp/proc/kcore - bind -"));
  EXPECT_TRUE(
      f.Called("mount tmpfs /tmp/proc/acpi tmpfs ro,nosuid,nodev,noexec "
               "size=4k,nr_inodes=1,mode=0555"));
  // The root goes read-only last, after every mount beneath it.
  EXPECT_EQ(calls.back(), "setattr /tmp ro");
}

TEST(MountOpsTest, WhatThisKernelLacksIsSkipped) {
  Fixture f;
  absent = {"/tmp/proc/asound", "/tmp/proc/latency_stats"};
  ASSERT_TRUE(ExecuteMountPlan(f.plan));
  for (const std::string& call : calls) {
    EXPECT_EQ(call.find("/tmp/proc/asound"), std::string::npos) << call;
    EXPECT_EQ(call.find("/tmp/proc/latency_stats"), std::string::npos) << call;
  }
  EXPECT_TRUE(f.Called("mount /tmp/dev/null /tmp/proc/timer_list - bind -"));
}

TEST(MountOpsTest, AFailedStepStopsAndNamesItsTarget) {
  Fixture f;
  fail_at = "/tmp/proc";
  EXPECT_FALSE(ExecuteMountPlan(f.plan));
  EXPECT_EQ(calls.back(), "mount proc /tmp/proc proc nosuid,nodev,noexec -");
  ChildError record = {};
  ASSERT_EQ(::read(f.error_pipe[0], &record, sizeof(record)), static_cast<ssize_t>(sizeof(record)));
  EXPECT_EQ(record.step, ChildStep::kMount);
  EXPECT_EQ(record.err, EPERM);
  EXPECT_STREQ(record.detail, "/proc");
}

}  // namespace
}  // namespace agentbox
