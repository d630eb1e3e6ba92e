// The tar writer behind `agentbox image import`: checked against GNU tar's own listing.
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

  auto tar = TarFromDirectory(root);
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
  EXPECT_FALSE(TarFromDirectory("/nonexistent/agentbox").ok());
}

}  // namespace
}  // namespace agentbox::docker
