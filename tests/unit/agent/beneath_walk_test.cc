// WalkBeneath (the resolver used where openat2 is missing, e.g. under gVisor) against the kernel's
// openat2 on this host: two identical trees full of the links a sandbox would plant, the same
// calls on each, and the answers must agree: the same errno, or fds naming the same place with
// the same open flags.
#include "agent/beneath_walk.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace agentbox {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kBeneath = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;

int KernelOpenat2(int dirfd, const std::string& rel, uint64_t flags, uint64_t mode,
                  uint64_t resolve) {
  struct open_how how = {};
  how.flags = flags | O_CLOEXEC;
  how.mode = mode;
  how.resolve = resolve;
  // EAGAIN: a mount or rename anywhere on the host raced with RESOLVE_BENEATH's checks (other
  // suites mount all the time); the kernel asks the caller to retry, as path_beneath.cc does.
  int fd = -1;
  for (int attempt = 0; attempt < 64; ++attempt) {
    fd = static_cast<int>(::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof(how)));
    if (fd >= 0 || errno != EAGAIN) break;
  }
  return fd;
}

// What one call answered, with paths relative to its tree so the two trees compare.
std::string Outcome(int fd, int err, const std::string& tree) {
  if (fd < 0) return std::string("errno ") + ::strerrordesc_np(err);
  char buf[4096];
  ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof(buf) - 1);
  std::string where = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?";
  if (where.rfind(tree, 0) == 0) where = "<tree>" + where.substr(tree.size());
  // O_NOFOLLOW and O_DIRECTORY only steer the open itself; the walk adds them to its last
  // open, and F_GETFL shows them, so they are left out of the comparison.
  int fl = ::fcntl(fd, F_GETFL) & ~(O_NOFOLLOW | O_DIRECTORY);
  ::close(fd);
  return "fd at " + where + " flags " + std::to_string(fl);
}

void PlantTree(const fs::path& root) {
  fs::create_directories(root / "ws" / "sub" / "deeper");
  auto touch = [](const fs::path& p) { ::close(::open(p.c_str(), O_CREAT | O_WRONLY, 0644)); };
  touch(root / "secret");
  touch(root / "ws" / "file");
  touch(root / "ws" / "sub" / "inner");
  ASSERT_EQ(::mkfifo((root / "ws" / "fifo").c_str(), 0644), 0);
  std::vector<std::pair<std::string, std::string>> links = {{"link_sub", "sub"},
                                                            {"link_file", "file"},
                                                            {"link_slash", "sub/"},
                                                            {"dangling", "nothere"},
                                                            {"abs_out", "/etc"},
                                                            {"rel_out", "../secret"},
                                                            {"up", ".."},
                                                            {"dot", "."},
                                                            {"loop", "loop"},
                                                            {"loop_a", "loop_b"},
                                                            {"loop_b", "loop_a"},
                                                            {"sub/back", ".."},
                                                            {"sub/escape", "../../secret"},
                                                            {"sub/rel_file", "../file"},
                                                            {"sub/deep_up", "../sub/.."},
                                                            {"proc", "/proc/self/cwd"},
                                                            {"file_slash", "file/"},
                                                            {"fifo_link", "fifo"}};
  // chain0 -> chain1 -> ... -> chain40 -> file: 41 links from chain0, 40 from chain1.
  for (int i = 0; i <= 40; ++i) {
    links.emplace_back("chain" + std::to_string(i),
                       i == 40 ? "file" : "chain" + std::to_string(i + 1));
  }
  for (const auto& [name, target] : links) {
    ASSERT_EQ(::symlink(target.c_str(), (root / "ws" / name).c_str()), 0) << name;
  }
}

std::vector<std::string> Paths() {
  std::vector<std::string> bases = {".",
                                    "..",
                                    "sub",
                                    "file",
                                    "fifo",
                                    "link_sub",
                                    "link_file",
                                    "link_slash",
                                    "dangling",
                                    "abs_out",
                                    "rel_out",
                                    "up",
                                    "dot",
                                    "loop",
                                    "loop_a",
                                    "sub/back",
                                    "sub/escape",
                                    "sub/rel_file",
                                    "sub/deep_up",
                                    "proc",
                                    "file_slash",
                                    "fifo_link",
                                    "chain0",
                                    "chain1",
                                    "missing",
                                    "sub/deeper",
                                    "sub/inner",
                                    "dot/dot/sub",
                                    "sub/../..",
                                    "sub/../sub",
                                    "sub//inner",
                                    "./sub/./inner",
                                    "link_sub/../file",
                                    "link_sub/back/file",
                                    "up/ws",
                                    std::string(256, 'n')};
  std::vector<std::string> suffixes = {"", "/", "/.", "/..", "/inner", "/new", "/../file"};
  std::vector<std::string> paths;
  for (const auto& base : bases) {
    for (const auto& suffix : suffixes) paths.push_back(base + suffix);
  }
  paths.push_back("");
  paths.push_back("/etc");
  paths.push_back(std::string(5000, 'a'));
  return paths;
}

class BeneathWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agentbox-walk-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    top_ = tmpl;
    PlantTree(top_ / "kernel");
    PlantTree(top_ / "walk");
    kernel_ws_ = ::open((top_ / "kernel" / "ws").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    walk_ws_ = ::open((top_ / "walk" / "ws").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(kernel_ws_, 0);
    ASSERT_GE(walk_ws_, 0);
    if (KernelOpenat2(kernel_ws_, ".", O_PATH, 0, kBeneath) < 0 && errno == ENOSYS) {
      GTEST_SKIP() << "this kernel has no openat2 to compare with";
    }
  }
  void TearDown() override {
    ::close(kernel_ws_);
    ::close(walk_ws_);
    fs::remove_all(top_);
  }

  // The same call on both trees; the answers must be the same.
  void ExpectSame(const std::string& rel, uint64_t flags, uint64_t mode, uint64_t resolve) {
    errno = 0;
    int kfd = KernelOpenat2(kernel_ws_, rel, flags, mode, resolve);
    int kerr = errno;
    errno = 0;
    int wfd = WalkBeneath(walk_ws_, rel, flags, mode, resolve);
    int werr = errno;
    EXPECT_EQ(Outcome(wfd, werr, (top_ / "walk").string()),
              Outcome(kfd, kerr, (top_ / "kernel").string()))
        << "path \"" << rel.substr(0, 80) << "\" flags " << std::oct << flags << " resolve "
        << std::hex << resolve;
  }

  fs::path top_;
  int kernel_ws_ = -1, walk_ws_ = -1;
};

TEST_F(BeneathWalkTest, LookupsAgreeWithOpenat2) {
  const uint64_t flag_sets[] = {O_PATH,
                                O_PATH | O_NOFOLLOW,
                                O_PATH | O_DIRECTORY,
                                O_PATH | O_DIRECTORY | O_NOFOLLOW,
                                O_RDONLY | O_NONBLOCK,
                                O_RDONLY | O_NONBLOCK | O_NOFOLLOW,
                                O_RDONLY | O_DIRECTORY,
                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW};
  for (const std::string& rel : Paths()) {
    for (uint64_t flags : flag_sets) {
      ExpectSame(rel, flags, 0, kBeneath);
      ExpectSame(rel, flags, 0, kBeneath | RESOLVE_NO_SYMLINKS);
    }
  }
}

// Creating files changes the trees; both change alike, so every later answer still compares.
TEST_F(BeneathWalkTest, CreatesAgreeWithOpenat2) {
  // O_NONBLOCK: opening the FIFO for writing must not wait for a reader.
  const uint64_t flag_sets[] = {O_WRONLY | O_CREAT, O_WRONLY | O_CREAT | O_EXCL,
                                O_WRONLY | O_CREAT | O_NOFOLLOW, O_RDWR | O_CREAT | O_TRUNC};
  for (uint64_t flags : flag_sets) {
    for (const std::string& rel : Paths()) {
      ExpectSame(rel, flags | O_NONBLOCK, 0600, kBeneath);
      ExpectSame(rel, flags | O_NONBLOCK, 0600, kBeneath | RESOLVE_NO_SYMLINKS);
    }
  }
  // What openat2 refuses as arguments, the walk refuses too.
  ExpectSame("file", O_RDONLY, 0600, kBeneath);               // a mode without O_CREAT
  ExpectSame("file", O_PATH | O_RDWR, 0, kBeneath);           // O_PATH with an access mode
  ExpectSame("file", O_WRONLY | O_CREAT, 0170000, kBeneath);  // file-type bits in the mode
  std::vector<std::string> beside_ws;
  for (const auto& entry : fs::directory_iterator(top_ / "walk")) {
    beside_ws.push_back(entry.path().filename());
  }
  std::sort(beside_ws.begin(), beside_ws.end());
  EXPECT_EQ(beside_ws, (std::vector<std::string>{"secret", "ws"})) << "a create escaped";
}

TEST_F(BeneathWalkTest, NeverLeavesTheRoot) {
  for (const char* rel : {"..", "up", "rel_out", "sub/escape", "sub/back/..", "abs_out", "/etc",
                          "link_sub/../../secret", "dot/up/ws/file"}) {
    errno = 0;
    EXPECT_EQ(WalkBeneath(walk_ws_, rel, O_PATH, 0, kBeneath), -1) << rel;
    EXPECT_EQ(errno, EXDEV) << rel;
  }
}

TEST_F(BeneathWalkTest, SymlinkHopsAreBoundedLikeTheKernel) {
  EXPECT_GE(WalkBeneath(walk_ws_, "chain1", O_PATH, 0, kBeneath), 0) << "40 links are fine";
  errno = 0;
  EXPECT_EQ(WalkBeneath(walk_ws_, "chain0", O_PATH, 0, kBeneath), -1);
  EXPECT_EQ(errno, ELOOP) << "41 links are not";
  errno = 0;
  EXPECT_EQ(WalkBeneath(walk_ws_, "loop_a/x", O_PATH, 0, kBeneath), -1);
  EXPECT_EQ(errno, ELOOP);
}

// From a procfs fd, a magic link (/proc/self/cwd jumps to the cwd) is refused, not followed.
TEST_F(BeneathWalkTest, RefusesProcfsLinks) {
  int proc_self = ::open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(proc_self, 0);
  for (const char* rel : {"cwd", "root/etc", "exe", "fd/0"}) {
    errno = 0;
    EXPECT_EQ(WalkBeneath(proc_self, rel, O_PATH, 0, kBeneath), -1) << rel;
    EXPECT_EQ(errno, ELOOP) << rel;
    EXPECT_EQ(KernelOpenat2(proc_self, rel, O_PATH, 0, kBeneath), -1) << rel;
  }
  ::close(proc_self);
}

TEST_F(BeneathWalkTest, RefusesResolveFlagsItDoesNotImplement) {
  for (uint64_t resolve : {uint64_t{0}, uint64_t{RESOLVE_IN_ROOT}, kBeneath | RESOLVE_NO_XDEV,
                           kBeneath | RESOLVE_CACHED}) {
    errno = 0;
    EXPECT_EQ(WalkBeneath(walk_ws_, "file", O_PATH, 0, resolve), -1);
    EXPECT_EQ(errno, EINVAL);
  }
}

}  // namespace
}  // namespace agentbox
