#include "image/oci_json.h"

#include <gtest/gtest.h>

#include "image/digest.h"
#include "image/sandbox_image.h"

namespace agentbox::image {
namespace {

const std::string kA = "sha256:" + std::string(64, 'a');
const std::string kB = "sha256:" + std::string(64, 'b');

TEST(OciJson, IndexSelectsThePlatform) {
  std::string index = R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json",
    "manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" +
                      kA +
                      R"(","size":10,"platform":{"os":"linux","architecture":"arm64"}},
                 {"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" +
                      kB + R"(","size":11,"platform":{"os":"linux","architecture":"amd64"}}]})";
  auto kind = ClassifyDocument(index, "");
  ASSERT_TRUE(kind.ok());
  EXPECT_EQ(*kind, DocumentKind::kIndex);
  auto entries = ParseIndex(index);
  ASSERT_TRUE(entries.ok());
  auto chosen = SelectPlatform(*entries, Platform{});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->digest, kB);
  auto none = SelectPlatform(*entries, *ParsePlatform("linux/s390x"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("linux/arm64, linux/amd64"), std::string::npos);
}

TEST(OciJson, ManifestAndConfig) {
  std::string manifest =
      R"({"schemaVersion":2,"config":{"mediaType":"x","digest":")" + kA +
      R"(","size":3},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":")" +
      kB + R"(","size":4}]})";
  auto m = ParseManifest(manifest);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->layers.size(), 1u);
  std::string config = R"({"architecture":"amd64","os":"linux","config":{"Env":["A=1"],
    "WorkingDir":"/app","User":"1000"},"rootfs":{"type":"layers","diff_ids":[")" +
                       kA + R"("]}})";
  auto c = ParseImageConfig(config);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->working_dir, "/app");
  EXPECT_EQ(c->diff_ids, std::vector<std::string>{kA});
}

TEST(OciJson, RefusesWhatItCannotVerify) {
  EXPECT_FALSE(ParseManifest(R"({"config":{"digest":"md5:1","size":1},"layers":[]})").ok());
  std::string foreign =
      R"({"config":{"digest":")" + kA +
      R"(","size":1},"layers":[{"mediaType":"application/vnd.docker.image.rootfs.foreign.diff.tar.gzip","digest":")" +
      kB + R"(","size":1}]})";
  EXPECT_FALSE(ParseManifest(foreign).ok());
  EXPECT_FALSE(ClassifyDocument(R"({"schemaVersion":1,"fsLayers":[]})", "").ok());
  EXPECT_FALSE(ParseManifest("[[[[").ok());
}

TEST(OciJson, DigestHelpers) {
  EXPECT_EQ(Sha256Of(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_TRUE(CheckDigest(kA).ok());
  EXPECT_FALSE(CheckDigest("sha256:" + std::string(64, 'A')).ok());
}

TEST(SandboxImage, PolicyWinsOverTheImage) {
  ImageConfig c;
  c.env = {"PATH=/opt/bin:/bin", "A=image", "BROKEN"};
  c.working_dir = "/app";
  SandboxSpec spec;
  spec.env = {{"A", "policy"}};
  ApplyImageConfig(c, &spec);
  ASSERT_EQ(spec.env.size(), 2u);
  EXPECT_EQ(spec.env[0], (std::pair<std::string, std::string>{"PATH", "/opt/bin:/bin"}));
  EXPECT_EQ(spec.env[1], (std::pair<std::string, std::string>{"A", "policy"}));
  EXPECT_EQ(spec.cwd, "/app");
  SandboxSpec given;
  given.cwd = "/workspace";
  given.cwd_given = true;
  ApplyImageConfig(c, &given);
  EXPECT_EQ(given.cwd, "/workspace");
}

}  // namespace
}  // namespace agentbox::image
