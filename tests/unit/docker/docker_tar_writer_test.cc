// The tar writer behind `agentbox image import` (libarchive's pax format, our walk): read back
// by GNU tar, and its safety rules (no symlink followed, special files skipped, errors kept).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "docker/tar_writer.h"
#include "sys/file_util.h"

namespace agentbox::docker {
namespace {

std::string RunCapture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

// The whole archive in memory, for the checks.
StatusOr<std::string> TarOf(const std::string& dir) {
  std::string out;
  Status st = WriteTarOfDirectory(dir, [&out](const void* data, size_t size) {
    out.append(static_cast<const char*>(data), size);
    return OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/agentbox-tar-test-XXXXXX";
    path_ = ::mkdtemp(templ);
  }
  ~TempDir() { RemoveTree(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(DockerTarWriterTest, GnuTarReadsItBack) {
  char templ[] = "/tmp/agentbox-tar-test-XXXXXX";
  ASSERT_NE(::mkdtemp(templ), nullptr);
  std::string dir = templ;
  std::string root = dir + "/root";
  ASSERT_TRUE(MakeDirs(root + "/bin").ok());
  std::string long_dir = root + "/" + std::string(90, 'd');
  ASSERT_TRUE(MakeDirs(long_dir).ok());
  ASSERT_TRUE(WriteFile(root + "/bin/tool", "#!/bin/sh\necho hi\n", 0755).ok());
  ASSERT_TRUE(WriteFile(long_dir + "/" + std::string(40, 'f'), "long", 0600).ok());
  ASSERT_EQ(::symlink("tool", (root + "/bin/link").c_str()), 0);
  ASSERT_EQ(::link((root + "/bin/tool").c_str(), (root + "/bin/hard").c_str()), 0);
  ASSERT_EQ(::mkfifo((root + "/fifo").c_str(), 0600), 0);

  auto tar = TarOf(root);
  ASSERT_TRUE(tar.ok()) << tar.status().message();
  ASSERT_EQ(tar->size() % 512, 0u);
  ASSERT_TRUE(WriteFile(dir + "/out.tar", *tar).ok());
  std::string out = dir + "/out";
  ASSERT_TRUE(MakeDir(out).ok());
  std::string err = RunCapture("tar -C " + out + " -xf " + dir + "/out.tar 2>&1; echo rc=$?");
  EXPECT_EQ(err, "rc=0\n");
  EXPECT_EQ(ReadFile(out + "/bin/tool").value(), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(ReadFile(out + "/bin/hard").value(), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(ReadFile(out + "/" + std::string(90, 'd') + "/" + std::string(40, 'f')).value(),
            "long");
  char target[64] = {};
  ASSERT_GT(::readlink((out + "/bin/link").c_str(), target, sizeof(target) - 1), 0);
  EXPECT_STREQ(target, "tool");
  struct stat st;
  ASSERT_EQ(::stat((out + "/bin/tool").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  EXPECT_FALSE(PathExists(out + "/fifo"));  // skipped
  RemoveTree(dir);
}

TEST(DockerTarWriterTest, MissingDirectoryIsAnError) {
  EXPECT_FALSE(TarOf("/nonexistent/agentbox").ok());
}

// Long names and links (pax records), owners, a symlink out of the tree kept as a link (never
// followed), a directory symlink whose target's contents stay out.
TEST(DockerTarWriterTest, ListingKeepsLinksAndNeverFollowsThem) {
  TempDir dir;
  std::string root = dir.path() + "/root";
  ASSERT_TRUE(MakeDirs(root + "/etc").ok());
  ASSERT_TRUE(MakeDirs(dir.path() + "/outside").ok());
  ASSERT_TRUE(WriteFile(dir.path() + "/outside/secret", "secret").ok());
  ASSERT_EQ(::symlink((dir.path() + "/outside").c_str(), (root + "/out").c_str()), 0);
  ASSERT_EQ(::symlink("/etc/shadow", (root + "/etc/shadow-link").c_str()), 0);
  std::string long_target(150, 't');
  ASSERT_EQ(::symlink(long_target.c_str(), (root + "/long-link").c_str()), 0);
  ASSERT_EQ(::chown((root + "/etc").c_str(), 1234, 5678), 0);
  auto tar = TarOf(root);
  ASSERT_TRUE(tar.ok()) << tar.status().message();
  ASSERT_TRUE(WriteFile(dir.path() + "/out.tar", *tar).ok());
  std::string listing = RunCapture("tar --numeric-owner -tvf " + dir.path() + "/out.tar");
  EXPECT_NE(listing.find("1234/5678"), std::string::npos) << listing;
  EXPECT_NE(listing.find("etc/shadow-link -> /etc/shadow"), std::string::npos) << listing;
  EXPECT_NE(listing.find("out -> " + dir.path() + "/outside"), std::string::npos) << listing;
  EXPECT_NE(listing.find("long-link -> " + long_target), std::string::npos) << listing;
  EXPECT_EQ(listing.find("secret"), std::string::npos) << listing;
}

// A sink that fails stops the archive with the sink's own error.
TEST(DockerTarWriterTest, SinkErrorStopsTheArchive) {
  TempDir dir;
  ASSERT_TRUE(WriteFile(dir.path() + "/big", std::string(1 << 20, 'x')).ok());
  size_t calls = 0;
  Status st = WriteTarOfDirectory(dir.path(), [&calls](const void*, size_t) {
    return ++calls == 2 ? Unavailable("the upload stopped") : OkStatus();
  });
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_EQ(st.message(), "the upload stopped");
}

// A file it cannot read is an error naming it, not a silently shorter archive.
TEST(DockerTarWriterTest, UnreadableFileIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a mode-000 file";
  TempDir dir;
  ASSERT_TRUE(WriteFile(dir.path() + "/locked", "x", 0000).ok());
  Status st = WriteTarOfDirectory(dir.path(), [](const void*, size_t) { return OkStatus(); });
  EXPECT_NE(st.message().find("locked"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace agentbox::docker
