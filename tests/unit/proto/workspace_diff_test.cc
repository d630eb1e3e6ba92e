#include "proto/workspace_diff.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

ManifestEntry File(const std::string& path, uint64_t inode, uint64_t size, int64_t mtime = 1) {
  return {path, EntryType::kFile, inode, size, mtime, mtime};
}
ManifestEntry Dir(const std::string& path, uint64_t inode, int64_t mtime = 1) {
  return {path, EntryType::kDir, inode, 4096, mtime, mtime};
}

TEST(PathBeforeTest, ComponentWiseOrderIsTheWalksOrder) {
  EXPECT_TRUE(PathBefore("a", "a/b"));
  EXPECT_TRUE(PathBefore("a/b", "a-b"));  // a walk finishes a/ before its sibling a-b
  EXPECT_TRUE(PathBefore("a/z", "a0"));
  EXPECT_FALSE(PathBefore("b", "a/b"));
  EXPECT_FALSE(PathBefore("a", "a"));
}

TEST(DiffManifestsTest, CreatedModifiedDeletedWithSizeDeltas) {
  WorkspaceManifest before{
      {Dir("d", 10), File("d/keep", 11, 5), File("d/old", 12, 100), File("edit", 13, 10, 1)},
      true,
      ""};
  WorkspaceManifest after{
      {Dir("d", 10, 2), File("d/keep", 11, 5), File("d/new", 14, 40), File("edit", 13, 25, 2)},
      true,
      ""};
  WorkspaceChanges c = DiffManifests(before, after);
  EXPECT_TRUE(c.observed);
  EXPECT_FALSE(c.partial);
  EXPECT_EQ(c.created, 1u);
  EXPECT_EQ(c.modified, 1u);
  EXPECT_EQ(c.deleted, 1u);
  EXPECT_EQ(c.size_delta, 40 - 100 + 15);
  ASSERT_EQ(c.listed.size(), 3u);
  EXPECT_EQ(c.listed[0].path, "/workspace/d/new");
  EXPECT_EQ(c.listed[0].change, ChangeKind::kCreated);
  EXPECT_EQ(c.listed[0].size_delta, 40);
  EXPECT_EQ(c.listed[1].path, "/workspace/d/old");
  EXPECT_EQ(c.listed[1].change, ChangeKind::kDeleted);
  EXPECT_EQ(c.listed[1].size_delta, -100);
  EXPECT_EQ(c.listed[2].path, "/workspace/edit");
  EXPECT_EQ(c.listed[2].change, ChangeKind::kModified);
  EXPECT_EQ(c.listed[2].size_delta, 15);
}

TEST(DiffManifestsTest, ADirectoryIsNeverModifiedAndSizesNothing) {
  WorkspaceManifest before{{Dir("d", 1, 1)}, true, ""};
  WorkspaceManifest after{{Dir("d", 1, 9), Dir("d/sub", 2)}, true, ""};
  WorkspaceChanges c = DiffManifests(before, after);
  EXPECT_EQ(c.modified, 0u);
  EXPECT_EQ(c.created, 1u);
  EXPECT_EQ(c.size_delta, 0);
  EXPECT_EQ(c.listed[0].type, EntryType::kDir);
}

TEST(DiffManifestsTest, AReplacedFileIsModifiedEvenWithTheSameSizeAndTimes) {
  WorkspaceManifest before{{File("f", 1, 7)}, true, ""};
  WorkspaceManifest after{{File("f", 2, 7)}, true, ""};
  EXPECT_EQ(DiffManifests(before, after).modified, 1u);
  WorkspaceManifest link{{{"f", EntryType::kSymlink, 1, 7, 1, 1}}, true, ""};
  EXPECT_EQ(DiffManifests(before, link).modified, 1u) << "a file became a link";
}

TEST(DiffManifestsTest, TheListIsBoundedTheTotalsAreNot) {
  WorkspaceManifest before, after;
  for (int i = 0; i < 150; ++i) after.entries.push_back(File("f" + std::to_string(1000 + i), i, 1));
  WorkspaceChanges c = DiffManifests(before, after);
  EXPECT_EQ(c.created, 150u);
  EXPECT_EQ(c.listed.size(), kMaxListedChanges);
  EXPECT_EQ(c.omitted, 150u - kMaxListedChanges);
  EXPECT_EQ(c.size_delta, 150);
}

// A walk that stopped early says nothing past its last path: no false deletions.
TEST(DiffManifestsTest, NothingPastAnIncompleteWalksLastPath) {
  WorkspaceManifest before{{File("a", 1, 1), File("b", 2, 1), File("c", 3, 1)}, true, ""};
  WorkspaceManifest after{{File("a", 1, 1), File("a2", 4, 1)}, false, "more than 2 entries"};
  WorkspaceChanges c = DiffManifests(before, after);
  EXPECT_EQ(c.created, 1u);
  EXPECT_EQ(c.deleted, 0u) << "b and c lie past the horizon a2";
  EXPECT_TRUE(c.partial);
  EXPECT_EQ(c.reason, "more than 2 entries");
}

TEST(DiffManifestsTest, AnUnreadableDirectoryMakesItPartial) {
  WorkspaceManifest before{{}, true, ""};
  WorkspaceManifest after{{Dir("locked", 1)}, true, "a directory could not be read: locked"};
  WorkspaceChanges c = DiffManifests(before, after);
  EXPECT_EQ(c.created, 1u);
  EXPECT_TRUE(c.partial);
}

}  // namespace
}  // namespace agentbox
