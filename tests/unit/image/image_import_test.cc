#include "image/image_import.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "image/digest.h"
#include "sys/file_util.h"

namespace agentbox::image {
namespace {

// One regular file "hello" in a tar, in memory.
std::string OneFileTar() {
  std::string out(64 * 1024, '\0');
  size_t used = 0;
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_open_memory(a, out.data(), out.size(), &used);
  struct archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, "hello");
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_size(e, 2);
  archive_write_header(a, e);
  archive_write_data(a, "hi", 2);
  archive_entry_free(e);
  archive_write_close(a);
  archive_write_free(a);
  out.resize(used);
  return out;
}

// The streamed-blob contract of LayerBlob::finish: the unpack's result reaches it, its failure
// is the import's, and the layer is committed only when both succeeded.
class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the image store needs root (whiteouts, owners)";
    char tmpl[] = "/tmp/ab-import-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto store = ImageStore::Open(dir_);
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_.emplace(std::move(*store));
    tar_ = OneFileTar();
    ASSERT_TRUE(WriteFile(dir_ + "/layer.tar", tar_).ok());
  }
  void TearDown() override {
    if (!dir_.empty()) RemoveTree(dir_);
  }
  ImportRequest Request(const std::string& diff_id) {
    Platform host = HostPlatform();
    ImportRequest r;
    r.config_json = R"({"os":")" + host.os + R"(","architecture":")" + host.architecture +
                    R"(","rootfs":{"type":"layers","diff_ids":[")" + diff_id + R"("]}})";
    r.config_digest = Sha256Of(r.config_json);
    r.layer_count = 1;
    r.names = {"example.test/import:1"};
    return r;
  }
  // Opens the tar with a finish that records what it was told and answers `verdict`.
  LayerOpener Opener(Status verdict) {
    return [this, verdict](size_t) -> StatusOr<LayerBlob> {
      AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(dir_ + "/layer.tar", O_RDONLY));
      return LayerBlob{std::move(fd), [this, verdict](bool unpacked) {
                         ++finished_;
                         told_unpacked_ = unpacked;
                         return verdict;
                       }};
    };
  }
  std::string dir_, tar_;
  std::optional<ImageStore> store_;
  int finished_ = 0;
  bool told_unpacked_ = false;
};

TEST_F(ImportTest, CommitsWhenTheUnpackAndTheDownloadSucceed) {
  auto r = ImportImage(*store_, Request(Sha256Of(tar_)), Opener(OkStatus()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(finished_, 1);
  EXPECT_TRUE(told_unpacked_);
  EXPECT_TRUE(store_->HasLayer(Sha256Of(tar_)));
}

TEST_F(ImportTest, TheDownloadsFailureWinsAndNothingIsCommitted) {
  auto r = ImportImage(*store_, Request(Sha256Of(tar_)),
                       Opener(InvalidArgument("blob sha256:x: digest mismatch")));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("digest mismatch"), std::string::npos);
  EXPECT_FALSE(store_->HasLayer(Sha256Of(tar_)));
  EXPECT_EQ(finished_, 1);
}

TEST_F(ImportTest, AnUnpackThatFailedIsSaidSoToTheDownload) {
  std::string wrong = "sha256:" + std::string(64, '0');
  auto r = ImportImage(*store_, Request(wrong), Opener(OkStatus()));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("digest mismatch"), std::string::npos);
  EXPECT_EQ(finished_, 1);
  EXPECT_TRUE(told_unpacked_);  // the stream unpacked; its content was not what the config says
  EXPECT_FALSE(store_->HasLayer(wrong));

  ASSERT_TRUE(WriteFile(dir_ + "/layer.tar", "not a tar at all").ok());
  finished_ = 0;
  r = ImportImage(*store_, Request(Sha256Of(tar_)), Opener(OkStatus()));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(finished_, 1);
  EXPECT_FALSE(told_unpacked_);
}

}  // namespace
}  // namespace agentbox::image
