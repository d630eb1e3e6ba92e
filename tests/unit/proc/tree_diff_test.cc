// `agentbox diff`: what changed from a snapshot's tree to the workspace's, and the cut of a
// long list with its counts still whole.
#include "proc/tree_diff.h"

#include <gtest/gtest.h>
#include <time.h>

#include <cstdint>
#include <limits>
#include <string>

#include "proc/workspace_tree.h"
#include "temp_tree.h"

namespace agentbox {
namespace {

// A snapshot and the workspace after a command, in two trees (no entry shares an inode, so
// every entry of both is compared by its bytes, as after a restore).
class TreeDiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_.Write("keep", "k");
    old_.Write("edit", "1");
    old_.Write("gone", "0123456789");
    old_.Mkdir("dirgone");
    old_.Write("dirgone/a", "a");
    old_.Write("dirgone/b", "b");
    old_.Mkdir("swap");
    old_.Write("swap/inner", "i");
    old_.Write("modeonly", "m");
    old_.Symlink("a", "link");

    new_.Write("keep", "k");  // written again with the same bytes: not a change
    new_.Write("edit", "12345");
    new_.Mkdir("newdir");
    new_.Write("newdir/x", "x");
    new_.Write("newdir/y", "y");
    new_.Write("newfile", "abc");
    new_.Write("swap", "xx");  // the directory replaced by a file
    new_.Write("modeonly", "m");
    new_.Chmod("modeonly", 0600);
    new_.Symlink("b", "link");
  }

  TreeDiff Diff(size_t max) {
    UniqueFd a = old_.Open(), b = new_.Open();
    auto d = DiffTrees(a.get(), b.get(), std::numeric_limits<int64_t>::min(), max);
    EXPECT_TRUE(d.ok()) << d.status().message();
    return d.ok() ? *d : TreeDiff{};
  }

  TempTree old_, new_;
};

std::string Line(const PathChange& c) {
  return std::string(ChangeKindName(c.kind)) + " " + c.path + " " + c.type + " " +
         std::to_string(c.size_delta) + (c.content ? " content" : " meta");
}

TEST_F(TreeDiffTest, CreatedModifiedDeletedInPathOrder) {
  TreeDiff d = Diff(100);
  std::vector<std::string> lines;
  for (const PathChange& c : d.changes) lines.push_back(Line(c));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "deleted dirgone dir 0 content",
                       "modified edit file 4 content",
                       "deleted gone file -10 content",
                       "modified link symlink 0 content",
                       "modified modeonly file 0 meta",
                       "created newdir dir 0 content",
                       "created newfile file 3 content",
                       "modified swap file 2 content",
                   }));
  EXPECT_EQ(d.created, 2u) << "a created directory is one change";
  EXPECT_EQ(d.modified, 4u);
  EXPECT_EQ(d.deleted, 2u) << "a deleted directory is one change";
  EXPECT_FALSE(d.truncated);
  EXPECT_EQ(TreeDiffText(d),
            "D dirgone/\nM edit\nD gone\nM link\nM modeonly\nA newdir/\nA newfile\nM swap\n");
}

TEST_F(TreeDiffTest, TruncatedAtMaxWithTheCountsComplete) {
  TreeDiff d = Diff(3);
  ASSERT_EQ(d.changes.size(), 3u);
  EXPECT_EQ(d.changes[2].path, "gone") << "the first ones, in path order";
  EXPECT_TRUE(d.truncated);
  EXPECT_EQ(d.created, 2u);
  EXPECT_EQ(d.modified, 4u);
  EXPECT_EQ(d.deleted, 2u);
  EXPECT_EQ(TreeDiffText(d), "D dirgone/\nM edit\nD gone\n... 5 more\n");

  TreeDiff none = Diff(0);
  EXPECT_TRUE(none.changes.empty());
  EXPECT_TRUE(none.truncated);
  EXPECT_EQ(none.created + none.modified + none.deleted, 8u);
}

TEST(TreeDiffSameTest, IdenticalTreesHaveNoChanges) {
  TempTree a, b;
  for (TempTree* t : {&a, &b}) {
    t->Mkdir("d");
    t->Write("d/f", "same");
    t->Symlink("d/f", "l");
  }
  UniqueFd fa = a.Open(), fb = b.Open();
  auto d = DiffTrees(fa.get(), fb.get(), std::numeric_limits<int64_t>::min(), 10);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->changes.empty());
  EXPECT_EQ(d->created + d->modified + d->deleted, 0u);
  EXPECT_EQ(TreeDiffText(*d), "");
}

}  // namespace
}  // namespace agentbox
