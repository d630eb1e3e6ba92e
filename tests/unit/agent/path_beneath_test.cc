#include "agent/path_beneath.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace agentbox {
namespace {

namespace fs = std::filesystem;

TEST(PathBeneathTest, ParsesWorkspaceAndRelativePaths) {
  struct Case {
    const char* given;
    const char* rel;
  } cases[] = {{"/workspace", "."},
               {"/workspace/", "."},
               {"/workspace/a/b", "a/b"},
               {"/workspace//a", "a"},
               {"a", "a"},
               {"a/../b", "a/../b"},
               {"../x", "../x"},
               {"/workspace/../../etc", "../../etc"}};
  for (const Case& c : cases) {
    auto parsed = ParseWorkspacePath(c.given);
    ASSERT_TRUE(parsed.ok()) << c.given;
    EXPECT_EQ(parsed->rel, c.rel) << c.given;
    EXPECT_EQ(parsed->given, c.given);
  }
}

TEST(PathBeneathTest, RefusesOtherAbsolutePathsBeforeAnySyscall) {
  for (const char* path : {"/etc/passwd", "/workspacex", "/", "/work"}) {
    auto parsed = ParseWorkspacePath(path);
    ASSERT_FALSE(parsed.ok()) << path;
    EXPECT_EQ(parsed.status().code(), StatusCode::kPermissionDenied);
    EXPECT_EQ(parsed.status().message(),
              std::string("path \"") + path + "\" is outside /workspace");
  }
}

TEST(PathBeneathTest, RefusesEmptyAndNulPaths) {
  EXPECT_EQ(ParseWorkspacePath("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseWorkspacePath(std::string("a\0b", 3)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(PathBeneathTest, AbsoluteAndEntryName) {
  EXPECT_EQ(ParseWorkspacePath("x/y")->Absolute(), "/workspace/x/y");
  EXPECT_EQ(ParseWorkspacePath("/workspace")->Absolute(), "/workspace");
  EXPECT_FALSE(HasEntryName(*ParseWorkspacePath("/workspace")));
  EXPECT_FALSE(HasEntryName(*ParseWorkspacePath("a/..")));
  EXPECT_FALSE(HasEntryName(*ParseWorkspacePath("a/.")));
  EXPECT_TRUE(HasEntryName(*ParseWorkspacePath("a/b/")));
}

// Every filesystem case runs twice: with the kernel's openat2, and with the walk that stands in
// for it where openat2 is missing (gVisor), forced here so it is proven on this host too.
class PathBeneathFsTest : public ::testing::TestWithParam<BeneathResolver> {
 protected:
  void SetUp() override {
    SetBeneathResolverForTesting(GetParam());
    char tmpl[] = "/tmp/agentbox-beneath-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    fs::create_directories(root_ / "ws" / "sub");
    fs::create_directories(root_ / "outside");
    fs::create_symlink(root_ / "outside", root_ / "ws" / "abs_out");
    fs::create_symlink("../outside", root_ / "ws" / "rel_out");
    fs::create_symlink("sub", root_ / "ws" / "rel_in");
    ws_fd_ = ::open((root_ / "ws").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(ws_fd_, 0);
  }
  void TearDown() override {
    ::close(ws_fd_);
    fs::remove_all(root_);
    SetBeneathResolverForTesting(BeneathResolver::kAuto);
  }
  WorkspacePath Path(const std::string& p) { return *ParseWorkspacePath(p); }

  fs::path root_;
  int ws_fd_ = -1;
};

TEST_P(PathBeneathFsTest, KernelRefusesEscapesAsOutsideWorkspace) {
  for (const char* p :
       {"..", "../outside", "abs_out", "rel_out", "sub/../../outside", "/workspace/../../etc"}) {
    auto fd = OpenBeneath(ws_fd_, Path(p), O_PATH);
    ASSERT_FALSE(fd.ok()) << p;
    EXPECT_EQ(fd.status().code(), StatusCode::kPermissionDenied) << p;
    EXPECT_EQ(fd.status().message(), std::string("path \"") + p + "\" is outside /workspace");
  }
}

TEST_P(PathBeneathFsTest, OpensInsideIncludingRelativeSymlinks) {
  EXPECT_TRUE(OpenBeneath(ws_fd_, Path("sub"), O_PATH | O_DIRECTORY).ok());
  EXPECT_TRUE(OpenBeneath(ws_fd_, Path("rel_in"), O_PATH | O_DIRECTORY).ok());
  EXPECT_TRUE(OpenBeneath(ws_fd_, Path("sub/../sub"), O_PATH | O_DIRECTORY).ok());
  EXPECT_EQ(OpenBeneath(ws_fd_, Path("missing"), O_PATH).status().code(), StatusCode::kNotFound);
}

TEST_P(PathBeneathFsTest, ParentRefusesWorkspaceItselfAndDotDot) {
  for (const char* p : {"/workspace", ".", "sub/..", "sub/."}) {
    EXPECT_EQ(OpenParentBeneath(ws_fd_, Path(p)).status().code(), StatusCode::kInvalidArgument)
        << p;
  }
  auto parent = OpenParentBeneath(ws_fd_, Path("sub/file"));
  ASSERT_TRUE(parent.ok());
  EXPECT_EQ(parent->name, "file");
}

TEST_P(PathBeneathFsTest, MakeDirsCreatesNestedButNeverOutside) {
  auto made = MakeDirsBeneath(ws_fd_, "a/b/c", Path("a/b/c"));
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_TRUE(fs::is_directory(root_ / "ws" / "a" / "b" / "c"));
  EXPECT_TRUE(MakeDirsBeneath(ws_fd_, "a/b/c", Path("a/b/c")).ok());  // mkdir -p again: fine
  EXPECT_TRUE(MakeDirsBeneath(ws_fd_, "rel_in/x", Path("rel_in/x")).ok());
  EXPECT_TRUE(fs::is_directory(root_ / "ws" / "sub" / "x"));
  for (const char* p : {"abs_out/new", "rel_out/new", "../new"}) {
    auto escaped = MakeDirsBeneath(ws_fd_, Path(p).rel, Path(p));
    EXPECT_EQ(escaped.status().code(), StatusCode::kPermissionDenied) << p;
  }
  EXPECT_FALSE(fs::exists(root_ / "outside" / "new"));
  EXPECT_FALSE(fs::exists(root_ / "new"));
}

INSTANTIATE_TEST_SUITE_P(Resolvers, PathBeneathFsTest,
                         ::testing::Values(BeneathResolver::kOpenat2, BeneathResolver::kWalk),
                         [](const auto& param_info) {
                           return param_info.param == BeneathResolver::kWalk ? "Walk" : "Openat2";
                         });

TEST(PathBeneathErrorTest, MapsErrnoToCodes) {
  WorkspacePath p{"x", "x"};
  EXPECT_EQ(PathError(p, "op", ENOENT).code(), StatusCode::kNotFound);
  EXPECT_EQ(PathError(p, "op", EACCES).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(PathError(p, "op", EXDEV).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(PathError(p, "op", EEXIST).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(PathError(p, "op", ENOSPC).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(PathError(p, "op", EDQUOT).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(PathError(p, "op", ENOTDIR).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PathError(p, "op", EIO).code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace agentbox
