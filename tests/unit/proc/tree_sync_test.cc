// Restore's pass: SyncTree makes a tree exactly another (the digest and the diff then agree
// there is no difference), keeps what is unchanged since the snapshot and copies the rest.
#include "proc/tree_sync.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>

#include <cstdlib>
#include <limits>
#include <string>

#include "proc/tree_diff.h"
#include "proc/workspace_digest.h"
#include "proc/workspace_tree.h"
#include "temp_tree.h"

namespace agentbox {
namespace {

std::string DigestOf(const TempTree& t) {
  UniqueFd fd = t.Open();
  auto d = DigestTree(fd.get(), nullptr, 0);
  EXPECT_TRUE(d.ok());
  return d.ok() ? *d : "";
}

ino_t Inode(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_ino;
}

StatusOr<SyncStats> Sync(const TempTree& src, const TempTree& dst, int64_t racy_after) {
  UniqueFd s = src.Open(), d = dst.Open();
  return SyncTree(s.get(), d.get(), racy_after);
}

TEST(TreeSyncTest, MakesTheTreeExactlyTheSource) {
  TempTree src, dst;
  src.Write("a", "alpha");
  src.Chmod("a", 0640);
  src.Mkdir("d");
  src.Write("d/f", "in d");
  ASSERT_EQ(::link(src.Path("a").c_str(), src.Path("d/hard").c_str()), 0);
  src.Symlink("../a", "d/link");
  src.Write("was_dir", "now a file");
  src.Mkdir("was_file");
  ASSERT_EQ(::mkfifo(src.Path("fifo").c_str(), 0600), 0);

  dst.Write("extra", "not in the source");
  dst.Mkdir("was_dir");
  dst.Write("was_dir/x", "x");
  dst.Write("was_file", "f");
  dst.Write("a", "other bytes");

  auto stats = Sync(src, dst, std::numeric_limits<int64_t>::min());
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(DigestOf(dst), DigestOf(src));
  UniqueFd s = src.Open(), d = dst.Open();
  auto diff = DiffTrees(s.get(), d.get(), std::numeric_limits<int64_t>::min(), 10);
  ASSERT_TRUE(diff.ok());
  EXPECT_TRUE(diff->changes.empty()) << TreeDiffText(*diff);
  EXPECT_EQ(Inode(dst.Path("a")), Inode(dst.Path("d/hard"))) << "a hard link stays one";
  struct stat st;
  ASSERT_EQ(::lstat(dst.Path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(stats->removed, 4u) << "extra, was_dir, was_file, a";
  EXPECT_EQ(stats->kept, 0u) << "nothing shared an inode";

  auto again = Sync(src, dst, std::numeric_limits<int64_t>::min());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(DigestOf(dst), DigestOf(src)) << "a second pass changes nothing";
}

TEST(TreeSyncTest, KeepsWhatIsUnchangedSinceTheSnapshot) {
  // The snapshot shares the inodes of the files it was taken of, as a btrfs snapshot does.
  TempTree snap, ws;
  snap.Write("a", "alpha");
  snap.Mkdir("d");
  snap.Write("d/b", "beta");
  snap.Write("edit", "before");
  for (const char* name : {"a", "d/b", "edit"}) {
    if (std::string(name) == "d/b") ws.Mkdir("d");
    ASSERT_EQ(::link(snap.Path(name).c_str(), ws.Path(name).c_str()), 0) << name;
  }
  const ino_t a_ino = Inode(ws.Path("a"));
  ws.Write("edit.new", "after!");
  ws.Rename("edit.new", "edit");  // a new inode: changed since
  ws.Write("extra", "made after the snapshot");

  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  const int64_t later = TimeNs(now) + 10 * kRacyMarginNs;
  auto stats = Sync(snap, ws, later);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(DigestOf(ws), DigestOf(snap));
  EXPECT_EQ(Inode(ws.Path("a")), a_ino) << "kept, not copied";
  EXPECT_EQ(stats->copied, 1u) << "edit";
  EXPECT_EQ(stats->removed, 2u) << "the changed edit and extra";
  EXPECT_EQ(stats->kept, 3u) << "a, d and d/b";

  // A racy bound before every ctime trusts nothing: all is copied again.
  ws.Write("extra", "again");
  auto all = Sync(snap, ws, std::numeric_limits<int64_t>::min());
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(DigestOf(ws), DigestOf(snap));
  EXPECT_NE(Inode(ws.Path("a")), a_ino);
}

}  // namespace
}  // namespace agentbox
