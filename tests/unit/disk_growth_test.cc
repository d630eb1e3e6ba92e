// DiskGrowth: what a command added to its workspace, against the limit, with walks skipped only
// when the filesystem shows the workspace cannot have grown by half the limit.
#include "native/disk_growth.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace agentbox {
namespace {

class DiskGrowthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/disk-growth-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // Written and synced, so every filesystem (not only those counting dirty pages) sees it.
  void Write(const std::string& name, size_t bytes) {
    {
      std::ofstream out(dir_ + "/" + name, std::ios::binary);
      out << std::string(bytes, 'x');
    }
    ::sync();
  }
  std::string dir_;
};

TEST_F(DiskGrowthTest, NothingWrittenIsNeverOverTheLimit) {
  DiskGrowth growth(dir_, 1 << 20);
  EXPECT_FALSE(growth.ExceededWhileRunning());
  EXPECT_FALSE(growth.ReachedAtEnd());
}

TEST_F(DiskGrowthTest, WritingTheLimitIsReachedAtTheEnd) {
  DiskGrowth growth(dir_, 1 << 20);
  Write("a", 2 << 20);
  EXPECT_TRUE(growth.ReachedAtEnd());
}

TEST_F(DiskGrowthTest, WhatWasThereBeforeDoesNotCount) {
  Write("before", 2 << 20);
  DiskGrowth growth(dir_, 1 << 20);
  Write("small", 64 << 10);
  EXPECT_FALSE(growth.ReachedAtEnd());
  Write("big", 2 << 20);
  EXPECT_TRUE(growth.ReachedAtEnd());
}

// The agent's way: the baseline walked in a background thread, waited for only by a check that
// needs it (where the filesystem's count can gate the checks; elsewhere it is walked at once).
TEST_F(DiskGrowthTest, ABackgroundBaselineCountsTheSame) {
  Write("before", 2 << 20);
  DiskGrowth growth(dir_, 1 << 20, DiskGrowth::Baseline::kWalkInBackground);
  ::usleep(200 * 1000);  // the walk of a two-file directory is long done: what follows is growth
  Write("small", 64 << 10);
  EXPECT_FALSE(growth.ReachedAtEnd());
  Write("big", 2 << 20);
  EXPECT_TRUE(growth.ReachedAtEnd());
}

TEST_F(DiskGrowthTest, ABackgroundBaselineMayOutliveItsOwner) {
  for (int i = 0; i < 20; ++i) Write("f" + std::to_string(i), 4096);
  for (int i = 0; i < 50; ++i) {
    DiskGrowth growth(dir_, 1 << 20, DiskGrowth::Baseline::kWalkInBackground);
  }  // destroyed at once, their walks still running: nothing waits, nothing breaks
  ::usleep(100 * 1000);
}

TEST_F(DiskGrowthTest, ExceededWhileRunningOnceMoreThanTheLimitIsWritten) {
  DiskGrowth growth(dir_, 1 << 20);
  Write("a", 3 << 20);
  // The first walk after the baseline may be deferred by the rate limit: it comes within a
  // few multiples of a walk's time, so poll for it like the supervisor does.
  bool exceeded = false;
  for (int i = 0; i < 200 && !exceeded; ++i) {
    exceeded = growth.ExceededWhileRunning();
    if (!exceeded) ::usleep(5000);
  }
  EXPECT_TRUE(exceeded);
}

// --disk-limit 0 in `run`: any growth at all is over, whatever the filesystem's count says.
TEST_F(DiskGrowthTest, AZeroLimitSeesAnyGrowth) {
  DiskGrowth growth(dir_, 0);
  EXPECT_FALSE(growth.ExceededWhileRunning());  // the directory's own block is not growth
  EXPECT_FALSE(growth.ReachedAtEnd());
  Write("a", 1);
  EXPECT_TRUE(growth.ReachedAtEnd());
}

TEST(FilesystemUsedBytesTest, OnlyFilesystemsThatCountDirtyPages) {
  EXPECT_EQ(FilesystemUsedBytes("/proc"), std::nullopt);
  EXPECT_EQ(FilesystemUsedBytes("/no/such/dir"), std::nullopt);
  struct statfs shm;
  if (::statfs("/dev/shm", &shm) == 0 && shm.f_type == TMPFS_MAGIC) {
    EXPECT_TRUE(FilesystemUsedBytes("/dev/shm").has_value());
  }
}

}  // namespace
}  // namespace agentbox
