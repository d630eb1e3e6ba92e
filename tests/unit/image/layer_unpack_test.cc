#include "image/layer_unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "image/digest.h"
#include "spec/sandbox_spec.h"
#include "sys/file_util.h"

namespace agentbox::image {
namespace {

struct Entry {
  std::string path;
  mode_t type = AE_IFREG;
  mode_t perm = 0644;
  std::string data;  // file contents, or the link target
  int64_t uid = 0;
};

std::string MakeTar(const std::vector<Entry>& entries) {
  std::string out(1 << 20, '\0');
  size_t used = 0;
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_open_memory(a, out.data(), out.size(), &used);
  for (const Entry& e : entries) {
    struct archive_entry* ae = archive_entry_new();
    archive_entry_set_pathname(ae, e.path.c_str());
    archive_entry_set_filetype(ae, e.type);
    archive_entry_set_perm(ae, e.perm);
    archive_entry_set_uid(ae, e.uid);
    archive_entry_set_gid(ae, e.uid);
    if (e.type == AE_IFLNK) archive_entry_set_symlink(ae, e.data.c_str());
    if (e.type == AE_IFREG) archive_entry_set_size(ae, static_cast<la_int64_t>(e.data.size()));
    if (e.type == AE_IFCHR) archive_entry_set_rdev(ae, makedev(1, 3));
    archive_write_header(a, ae);
    if (e.type == AE_IFREG) archive_write_data(a, e.data.data(), e.data.size());
    archive_entry_free(ae);
  }
  archive_write_close(a);
  archive_write_free(a);
  out.resize(used);
  return out;
}

class UnpackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "unpacking keeps owners and makes whiteouts: needs root";
    char tmpl[] = "/tmp/ab-unpack-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty()) RemoveTree(dir_);
  }
  StatusOr<UnpackedLayer> Unpack(const std::vector<Entry>& entries, UnpackLimits limits = {}) {
    std::string tar = MakeTar(entries);
    tar_digest_ = Sha256Of(tar);
    std::string file = dir_ + "/layer.tar";
    EXPECT_TRUE(WriteFile(file, tar).ok());
    EXPECT_TRUE(MakeDir(dir_ + "/root").ok());
    auto fd = OpenFile(file, O_RDONLY);
    return UnpackLayer(fd->get(), dir_ + "/root", limits);
  }
  std::string dir_, tar_digest_;
};

TEST_F(UnpackTest, WritesFilesWithMappedOwnersAndTheStreamDigest) {
  auto r = Unpack({{"usr/bin/tool", AE_IFREG, 04755, "#!x", 0},
                   {"home/u/f", AE_IFREG, 0600, "mine", 1000},
                   {"lnk", AE_IFLNK, 0777, "/etc/passwd"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diff_id, tar_digest_);
  EXPECT_EQ(r->setid_dropped, 1u);
  struct stat st;
  ASSERT_EQ(::stat((dir_ + "/root/usr/bin/tool").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(st.st_uid, kSandboxHostRootId);
  ASSERT_EQ(::stat((dir_ + "/root/home/u/f").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, kSandboxHostUserId);
  ASSERT_EQ(::lstat((dir_ + "/root/lnk").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));  // kept as it is: it resolves inside the sandbox
}

TEST_F(UnpackTest, RefusesEscapes) {
  EXPECT_FALSE(Unpack({{"../x", AE_IFREG, 0644, "x"}}).ok());
  TearDown();
  SetUp();
  auto through = Unpack({{"l", AE_IFLNK, 0777, dir_}, {"l/evil", AE_IFREG, 0644, "x"}});
  ASSERT_FALSE(through.ok());
  EXPECT_NE(through.status().message().find("symlink"), std::string::npos);
  EXPECT_FALSE(PathExists(dir_ + "/evil"));
}

TEST_F(UnpackTest, RefusesDevicesAndBombs) {
  auto dev = Unpack({{"dev/mem", AE_IFCHR, 0600, ""}});
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.status().message().find("device node"), std::string::npos);
  TearDown();
  SetUp();
  UnpackLimits few;
  few.max_entries = 2;
  auto many = Unpack({{"a"}, {"b"}, {"c"}}, few);
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.status().code(), StatusCode::kResourceExhausted);
  TearDown();
  SetUp();
  UnpackLimits small;
  small.max_bytes = 4096;
  auto big = Unpack({{"big", AE_IFREG, 0644, std::string(100000, 'z')}}, small);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
}

TEST_F(UnpackTest, WhiteoutsInOverlayForm) {
  auto r = Unpack({{"d/.wh.gone", AE_IFREG, 0644, ""}, {"o/.wh..wh..opq", AE_IFREG, 0644, ""}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  struct stat st;
  ASSERT_EQ(::lstat((dir_ + "/root/d/gone").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(0, 0));
  char v[4] = {};
  EXPECT_EQ(::getxattr((dir_ + "/root/o").c_str(), "trusted.overlay.opaque", v, sizeof(v)), 1);
  EXPECT_EQ(v[0], 'y');
}

}  // namespace
}  // namespace agentbox::image
