#include "image/image_ref.h"

#include <gtest/gtest.h>

namespace agentbox::image {
namespace {

TEST(ImageRef, NormalisesLikeDocker) {
  auto r = ParseImageRef("busybox");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Canonical(), "docker.io/library/busybox:latest");
  EXPECT_EQ(r->Familiar(), "busybox:latest");
  r = ParseImageRef("localhost:5000/tools/py:3.11");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->domain, "localhost:5000");
  EXPECT_EQ(r->repository, "tools/py");
  EXPECT_EQ(r->tag, "3.11");
  r = ParseImageRef("user/app");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Canonical(), "docker.io/user/app:latest");
}

TEST(ImageRef, DigestReferences) {
  std::string d = "sha256:" + std::string(64, 'a');
  auto r = ParseImageRef("127.0.0.1:5000/x@" + d);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tag, "");
  EXPECT_EQ(r->digest, d);
  EXPECT_EQ(r->Canonical(), "127.0.0.1:5000/x@" + d);
  EXPECT_FALSE(ParseImageRef("x@sha256:abc").ok());
}

TEST(ImageRef, RefusesMalformed) {
  for (const char* bad : {"", "UPPER", "a//b", "a:b:c", "-a", "a/-b", "x:", "x:-1", "a..b"}) {
    EXPECT_FALSE(ParseImageRef(bad).ok()) << bad;
  }
  EXPECT_FALSE(ParseImageRef(std::string(300, 'a')).ok());
}

TEST(ImageRef, TheNameIsBoundedAsItsCanonicalFormSoThatParsesAgain) {
  // 240 characters typed, 258 once docker.io/library/ is in front (the fuzzer's find).
  const std::string short_form(240, 'a');
  EXPECT_FALSE(ParseImageRef(short_form).ok());
  const std::string fits(255 - std::string("docker.io/library/").size(), 'a');
  auto ref = ParseImageRef(fits + ":" + std::string(128, 't'));
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  auto again = ParseImageRef(ref->Canonical());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->Canonical(), ref->Canonical());
  EXPECT_FALSE(ParseImageRef(fits + "a").ok());
}

TEST(ImageRef, LoopbackRegistries) {
  EXPECT_TRUE(IsLoopbackRegistry("localhost:5000"));
  EXPECT_TRUE(IsLoopbackRegistry("127.0.0.1:40000"));
  EXPECT_TRUE(IsLoopbackRegistry("[::1]:5000"));
  EXPECT_FALSE(IsLoopbackRegistry("127.0.0.1.example.com"));
  EXPECT_FALSE(IsLoopbackRegistry("10.0.0.1:5000"));
  EXPECT_FALSE(IsLoopbackRegistry("docker.io"));
}

}  // namespace
}  // namespace agentbox::image
