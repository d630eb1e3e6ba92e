// ResolveImageUser: the image's User by the decided rule (docs/policy.md, "Images").
#include "policy/image_user.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

constexpr const char* kPasswd =
    "root:x:0:0:root:/root:/bin/bash\n"
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
    "app:x:1001:1002:app:/home/app:/bin/sh\n"
    "rootgroup:x:1003:0::/:/bin/sh\n"
    "big:x:70000:70000::/:/bin/sh\n"
    "broken:x:notanumber:1::/:/bin/sh\n";
constexpr const char* kGroup = "root:x:0:\nstaff:x:50:\napp:x:1002:\nwheel:x:0:\n";

SandboxUser Resolve(std::string_view user) {
  auto got = ResolveImageUser(user, kPasswd, kGroup);
  EXPECT_TRUE(got.ok()) << user << ": " << got.status().message();
  return got.ok() ? *got : SandboxUser{0, 0};
}

TEST(ImageUserTest, RootOrNoUserIsTheStrictDefault) {
  for (const char* user : {"", "root", "0", "0:0", "root:root", "root:0", "0:staff"}) {
    EXPECT_EQ(Resolve(user), (SandboxUser{1000, 1000})) << user;
  }
}

TEST(ImageUserTest, ANameTakesItsPasswdEntrysIds) {
  EXPECT_EQ(Resolve("app"), (SandboxUser{1001, 1002}));
  EXPECT_EQ(Resolve("daemon"), (SandboxUser{1, 1}));
}

TEST(ImageUserTest, NumbersNeedNoLookup) {
  auto bare = ResolveImageUser("1001", "", "");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(*bare, (SandboxUser{1001, 1001})) << "a bare uid: the group of its own number";
  auto both = ResolveImageUser("2000:3000", "", "");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both, (SandboxUser{2000, 3000}));
  EXPECT_FALSE(ImageUserNeedsLookup("2000:3000"));
  EXPECT_FALSE(ImageUserNeedsLookup("root"));
  EXPECT_FALSE(ImageUserNeedsLookup(""));
  EXPECT_TRUE(ImageUserNeedsLookup("app"));
  EXPECT_TRUE(ImageUserNeedsLookup("1001:staff"));
}

TEST(ImageUserTest, AGroupNameComesFromTheGroupFile) {
  EXPECT_EQ(Resolve("app:staff"), (SandboxUser{1001, 50}));
  EXPECT_EQ(Resolve("1001:staff"), (SandboxUser{1001, 50}));
}

TEST(ImageUserTest, GroupZeroIsNeverGiven) {
  EXPECT_EQ(Resolve("rootgroup"), (SandboxUser{1003, 1003}));
  EXPECT_EQ(Resolve("app:0"), (SandboxUser{1001, 1001}));
  EXPECT_EQ(Resolve("app:wheel"), (SandboxUser{1001, 1001}));
}

TEST(ImageUserTest, UnknownNamesAndIdsPast65534AreRefusedWithOneLine) {
  for (const char* user : {"nobody-here", "app:nogroup", "broken", "big", "70000", "1001:70000",
                           "4294967296", "a\nb"}) {
    auto got = ResolveImageUser(user, kPasswd, kGroup);
    ASSERT_FALSE(got.ok()) << user;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << user;
    EXPECT_EQ(got.status().message().find('\n'), std::string::npos) << got.status().message();
    EXPECT_NE(got.status().message().find("User"), std::string::npos) << got.status().message();
  }
  EXPECT_FALSE(ResolveImageUser("app", "", "").ok()) << "an image without /etc/passwd";
}

TEST(ImageUserTest, TextRoundTripsAndRefusesRootAndJunk) {
  EXPECT_EQ(SandboxUserText({1001, 50}), "1001:50");
  auto back = ParseSandboxUser("1001:50");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, (SandboxUser{1001, 50}));
  for (const char* bad : {"", "1001", "0:0", "1001:0", "0:1001", "65535:1", "a:b", "1:2:3", ":1"}) {
    EXPECT_FALSE(ParseSandboxUser(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace agentbox
