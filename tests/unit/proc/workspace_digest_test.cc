// The session log's workspace digest: what it covers (content, mode, type, names, link
// targets; not times), and that its stat cache never changes the answer, only the work.
#include "proc/workspace_digest.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>

#include <string>

#include "proc/workspace_tree.h"
#include "sys/file_util.h"
#include "temp_tree.h"

namespace agentbox {
namespace {

constexpr char kBogus[] = "sha256:not-the-content";

int64_t NowNs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return TimeNs(ts);
}

// A time at which every file the test made is well outside the racy margin.
int64_t Later() { return NowNs() + 10 * kRacyMarginNs; }

std::string Digest(const TempTree& t, DigestCache* cache = nullptr, int64_t now = Later()) {
  UniqueFd fd = t.Open();
  EXPECT_TRUE(fd.valid());
  auto d = DigestTree(fd.get(), cache, now);
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? *d : "";
}

void Fill(TempTree& t) {
  t.Write("a.txt", "alpha");
  t.Mkdir("src");
  t.Write("src/main.py", "print(1)\n");
  t.Mkdir("src/pkg");
  t.Write("src/pkg/mod.py", "x = 2\n");
  t.Symlink("src/main.py", "link");
}

TEST(WorkspaceDigestTest, SameFilesSameDigestWhateverMadeThem) {
  TempTree a, b;
  Fill(a);
  // b made in another order, a file rewritten on the way: times and inodes differ.
  b.Symlink("src/main.py", "link");
  b.Mkdir("src");
  b.Mkdir("src/pkg");
  b.Write("src/pkg/mod.py", "x = 2\n");
  b.Write("src/main.py", "something else");
  b.Write("src/main.py", "print(1)\n");
  b.Write("a.txt", "alpha");
  const std::string d = Digest(a);
  EXPECT_EQ(d.rfind("sha256:", 0), 0u) << d;
  EXPECT_EQ(d, Digest(b));
}

TEST(WorkspaceDigestTest, ChangesWithContentModeTypeNameAndLinkTarget) {
  TempTree t;
  Fill(t);
  const std::string base = Digest(t);

  t.Write("a.txt", "alphA");  // same size, other bytes
  EXPECT_NE(Digest(t), base) << "content";
  t.Write("a.txt", "alpha");
  EXPECT_EQ(Digest(t), base) << "the same bytes again";

  t.Chmod("a.txt", 0600);
  EXPECT_NE(Digest(t), base) << "mode";
  t.Chmod("a.txt", 0644);
  ASSERT_EQ(Digest(t), base);

  t.Rename("a.txt", "b.txt");
  EXPECT_NE(Digest(t), base) << "a rename";
  t.Rename("b.txt", "a.txt");
  ASSERT_EQ(Digest(t), base);

  t.Remove("link");
  t.Symlink("src/pkg/mod.py", "link");
  EXPECT_NE(Digest(t), base) << "a symlink's target";
  t.Remove("link");
  t.Symlink("src/main.py", "link");
  ASSERT_EQ(Digest(t), base);

  t.Remove("a.txt");
  t.Mkdir("a.txt");
  EXPECT_NE(Digest(t), base) << "a file replaced by a directory";
}

TEST(WorkspaceDigestTest, TypeIsPartOfTheRecord) {
  // A file holding a link's target is not the link.
  TempTree a, b;
  a.Write("x", "target");
  a.Chmod("x", 0777);
  b.Symlink("target", "x");
  EXPECT_NE(Digest(a), Digest(b));
  EXPECT_NE(DigestRecord("x", S_IFREG | 0644, 0, "-"), DigestRecord("x", S_IFDIR | 0644, 0, "-"));
  EXPECT_EQ(DigestRecord("d/x", S_IFREG | 0640, 5, "sha256:ab"),
            std::string("f 640 5 sha256:ab d/x") + '\0');
}

TEST(WorkspaceDigestTest, TheCacheGivesTheSameDigestAsNone) {
  TempTree t;
  Fill(t);
  const std::string plain = Digest(t);
  DigestCache cache;
  EXPECT_EQ(Digest(t, &cache), plain) << "cold cache";
  EXPECT_EQ(cache.size(), 3u) << "exactly the regular files";
  EXPECT_TRUE(cache.count("src/pkg/mod.py"));
  EXPECT_EQ(Digest(t, &cache), plain) << "warm cache";

  t.Write("src/main.py", "print(2)\n");
  t.Remove("a.txt");
  const std::string changed = Digest(t);
  EXPECT_NE(changed, plain);
  EXPECT_EQ(Digest(t, &cache), changed) << "a warm cache after changes";
  EXPECT_FALSE(cache.count("a.txt")) << "a deleted file leaves the cache";
}

TEST(WorkspaceDigestTest, AnEntryOutsideTheRacyMarginIsServedFromTheCache) {
  // The baseline of the next test: a trusted entry's hash is used without reading the file
  // (shown by planting a wrong one).
  TempTree t;
  t.Write("f", "content");
  DigestCache cache;
  const std::string truth = Digest(t, &cache, Later());
  ASSERT_NE(cache["f"].ctime_ns, -1);
  cache["f"].hash = kBogus;
  EXPECT_NE(Digest(t, &cache, Later()), truth);
}

TEST(WorkspaceDigestTest, AFileChangedWithinTheRacyMarginIsRehashed) {
  TempTree t;
  t.Write("f", "content");
  DigestCache cache;
  // Digested in the same instant the file was written: its ctime is not to be trusted.
  const std::string truth = Digest(t, &cache, NowNs());
  ASSERT_EQ(cache["f"].ctime_ns, -1) << "marked racy";
  cache["f"].hash = kBogus;
  EXPECT_EQ(Digest(t, &cache, Later()), truth) << "rehashed, not served from the cache";
  EXPECT_NE(cache["f"].ctime_ns, -1) << "trusted once outside the margin";
}

TEST(WorkspaceDigestTest, SameSizeRewriteWithMtimePutBackIsSeen) {
  // What the ctime is for: a tool that restores mtime after a same-size rewrite.
  TempTree t;
  t.Write("f", "aaaa");
  struct stat before;
  ASSERT_EQ(::stat(t.Path("f").c_str(), &before), 0);
  DigestCache cache;
  Digest(t, &cache, Later());
  t.Write("f", "bbbb");
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, t.Path("f").c_str(), times, 0), 0);
  EXPECT_EQ(Digest(t, &cache, Later()), Digest(t));
}

TEST(WorkspaceDigestTest, CacheEncodingRoundTrips) {
  DigestCache cache;
  cache["a"] = {1, 2, 3, -1, "sha256:aa"};
  cache[std::string("dir/with\nnewline\0nul", 20)] = {UINT64_MAX, 0, -5, 7, ""};
  DigestCache back = DecodeDigestCache(EncodeDigestCache(cache));
  ASSERT_EQ(back.size(), cache.size());
  for (const auto& [path, e] : cache) {
    ASSERT_TRUE(back.count(path)) << path;
    const DigestCacheEntry& b = back[path];
    EXPECT_EQ(b.ino, e.ino);
    EXPECT_EQ(b.size, e.size);
    EXPECT_EQ(b.mtime_ns, e.mtime_ns);
    EXPECT_EQ(b.ctime_ns, e.ctime_ns);
    EXPECT_EQ(b.hash, e.hash);
  }
  EXPECT_TRUE(DecodeDigestCache(EncodeDigestCache({})).empty());
}

TEST(WorkspaceDigestTest, ACorruptCacheIsEmpty) {
  DigestCache cache;
  cache["a"] = {1, 2, 3, 4, "sha256:aa"};
  cache["b"] = {5, 6, 7, 8, "sha256:bb"};
  const std::string bytes = EncodeDigestCache(cache);
  EXPECT_TRUE(DecodeDigestCache(bytes.substr(0, bytes.size() - 1)).empty()) << "truncated";
  EXPECT_TRUE(DecodeDigestCache("garbage" + bytes).empty()) << "no magic";
  std::string huge = bytes;
  huge[std::string("agentbox-digest-cache-1\n").size() + 7] = '\x7f';  // a path length past the end
  EXPECT_TRUE(DecodeDigestCache(huge).empty());
  EXPECT_TRUE(DecodeDigestCache("").empty());
}

TEST(WorkspaceDigestTest, DigestWorkspaceIgnoresACorruptCacheFileAndRewritesIt) {
  TempTree t, state;
  Fill(t);
  const std::string truth = Digest(t);
  const std::string cache_path = state.Path("digest.cache");
  ASSERT_TRUE(WriteFile(cache_path, "agentbox-digest-cache-1\n\x05\x01", 0600).ok());
  auto d = DigestWorkspace(t.root(), cache_path, cache_path);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(*d, truth);
  auto bytes = ReadFile(cache_path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(DecodeDigestCache(*bytes).size(), 3u) << "a good cache written in its place";
  auto again = DigestWorkspace(t.root(), cache_path, "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, truth);
  EXPECT_FALSE(DigestWorkspace(t.Path("missing"), "", "").ok());
}

}  // namespace
}  // namespace agentbox
