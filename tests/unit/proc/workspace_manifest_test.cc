// TakeManifest on a real directory, then DiffManifests: what a command did to a workspace.
#include "proc/workspace_manifest.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace agentbox {
namespace {

class WorkspaceManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/manifest-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { (void)!std::system(("rm -rf " + dir_).c_str()); }
  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ + "/" + rel) << text;
  }
  std::string dir_;
};

TEST_F(WorkspaceManifestTest, WalkOrderTypesAndSizes) {
  ASSERT_EQ(mkdir((dir_ + "/a").c_str(), 0755), 0);
  Write("a/x", "12345");
  Write("a-b", "1");
  ASSERT_EQ(symlink("/etc/passwd", (dir_ + "/link").c_str()), 0);
  auto m = TakeManifest(dir_);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->entries.size(), 4u);
  EXPECT_EQ(m->entries[0].path, "a");
  EXPECT_EQ(m->entries[0].type, EntryType::kDir);
  EXPECT_EQ(m->entries[1].path, "a/x");
  EXPECT_EQ(m->entries[1].size, 5u);
  EXPECT_EQ(m->entries[2].path, "a-b");
  EXPECT_EQ(m->entries[3].path, "link");
  EXPECT_EQ(m->entries[3].type, EntryType::kSymlink) << "not followed";
  EXPECT_TRUE(m->complete);
}

TEST_F(WorkspaceManifestTest, ChangesOfACommand) {
  Write("keep", "k");
  Write("edit", "1");
  Write("gone", "0123456789");
  auto before = TakeManifest(dir_);
  ASSERT_TRUE(before.ok());
  Write("edit", "12345");
  ASSERT_EQ(unlink((dir_ + "/gone").c_str()), 0);
  ASSERT_EQ(mkdir((dir_ + "/new").c_str(), 0755), 0);
  Write("new/file", "abc");
  WorkspaceChanges c = ChangesSince(before, dir_);
  EXPECT_TRUE(c.observed);
  EXPECT_EQ(c.created, 2u);
  EXPECT_EQ(c.modified, 1u);
  EXPECT_EQ(c.deleted, 1u);
  EXPECT_EQ(c.size_delta, 4 - 10 + 3);
  ASSERT_EQ(c.listed.size(), 4u);
  EXPECT_EQ(c.listed[0].path, "/workspace/edit");
  EXPECT_EQ(c.listed[1].path, "/workspace/gone");
  EXPECT_EQ(c.listed[2].path, "/workspace/new");
  EXPECT_EQ(c.listed[3].path, "/workspace/new/file");
}

TEST_F(WorkspaceManifestTest, BoundedWalkIsAPrefixAndSaysSo) {
  for (int i = 0; i < 10; ++i) Write("f" + std::to_string(i), "x");
  auto m = TakeManifest(dir_, 4);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->entries.size(), 4u);
  EXPECT_FALSE(m->complete);
  EXPECT_EQ(m->entries.back().path, "f3");
  EXPECT_NE(m->note.find("more than 4 entries"), std::string::npos);
}

TEST_F(WorkspaceManifestTest, AMissingWorkspaceIsNotObserved) {
  auto before = TakeManifest(dir_ + "/nope");
  EXPECT_FALSE(before.ok());
  WorkspaceChanges c = ChangesSince(before, dir_);
  EXPECT_FALSE(c.observed);
  EXPECT_FALSE(c.reason.empty());
}

}  // namespace
}  // namespace agentbox
