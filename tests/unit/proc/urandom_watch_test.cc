// The /dev/urandom watch for real, in a forked child (proc/urandom_watch.h): its read-only opens
// of the random devices, by any path, read the seed's per-open streams with the flags it asked;
// other opens, and opens for writing, are the kernel's; an open the filter denies stays denied.
// Needs no privileges (no_new_privs), and Linux 5.14 (skipped before).
#include "proc/urandom_watch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "policy/seccomp_program.h"
#include "proc/seccomp_listener.h"
#include "proc/seeded_random.h"

namespace agentbox {
namespace {

constexpr uint64_t kSeed = 42;

struct Seen {
  unsigned char absolute[16] = {}, random[16] = {}, relative[16] = {}, linked[16] = {};
  bool absolute_fifo = false, absolute_cloexec = false, random_cloexec = true;
  bool relative_nonblock = false, null_is_device = false, write_is_device = false;
  long big = 0, denied = 0, denied_errno = 0;
};

void ReadAll(int fd, unsigned char* out, size_t n) {
  if (fd < 0) _exit(6);  // the open failed: no hang on poll(-1)
  size_t done = 0;
  while (done < n) {
    struct pollfd p = {fd, POLLIN, 0};
    (void)poll(&p, 1, -1);
    const ssize_t r = read(fd, out + done, n - done);
    if (r <= 0 && errno != EAGAIN) _exit(5);
    if (r > 0) done += static_cast<size_t>(r);
  }
}

bool IsCharDevice(int fd, unsigned minor_number) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && minor(st.st_rdev) == minor_number;
}

[[noreturn]] void Child(int channel, int report, const std::string& link) {
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  static const std::vector<BpfInstruction> watched = WithOpenWatch(NotifyingSeccompProgram());
  if (!AttachFilterAndSendListener(watched, {}, channel)) _exit(3);
  Seen seen;
  struct stat st;
  // The raw open, with a mode of 0 as glibc passes (the filter denies set-id bits in any mode).
  const int a = static_cast<int>(syscall(SYS_open, "/dev/urandom", O_RDONLY | O_CLOEXEC, 0));  // 1
  ReadAll(a, seen.absolute, 16);
  seen.absolute_fifo = fstat(a, &st) == 0 && S_ISFIFO(st.st_mode);
  seen.absolute_cloexec = fcntl(a, F_GETFD) & FD_CLOEXEC;
  const int r = openat(AT_FDCWD, "/dev/random", O_RDONLY);  // 2
  ReadAll(r, seen.random, 16);
  seen.random_cloexec = fcntl(r, F_GETFD) & FD_CLOEXEC;
  if (chdir("/dev") != 0) _exit(4);
  const int rel = open("./urandom", O_RDONLY | O_NONBLOCK);  // 3
  seen.relative_nonblock = fcntl(rel, F_GETFL) & O_NONBLOCK;
  ReadAll(rel, seen.relative, 16);
  const int linked = open(link.c_str(), O_RDONLY);  // 4
  ReadAll(linked, seen.linked, 16);
  seen.null_is_device = IsCharDevice(open("/dev/null", O_RDONLY), 3);
  seen.write_is_device = IsCharDevice(open("/dev/urandom", O_WRONLY), 9);
  static unsigned char big[4 << 20];
  ReadAll(a, big, sizeof(big));
  seen.big = sizeof(big);
  // The filter denies a set-uid mode on every open: the watch must not let it by.
  seen.denied = static_cast<long>(syscall(SYS_open, "/dev/null", O_RDONLY, 04755));
  seen.denied_errno = errno;
  (void)!write(report, &seen, sizeof(seen));
  _exit(0);
}

std::vector<unsigned char> Stream(uint64_t open_number) {
  std::vector<unsigned char> out(16);
  SeededRandom(UrandomOpenSeed(kSeed, open_number)).Fill(out.data(), out.size());
  return out;
}

std::vector<unsigned char> Bytes(const unsigned char* p) { return {p, p + 16}; }

TEST(UrandomWatchTest, TheChildsRandomDevicesReadTheSeedsStreams) {
  if (!SeededUrandomSupported().ok()) GTEST_SKIP() << SeededUrandomSupported().message();
  char dir[] = "/tmp/urandom_watch_test.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string link = std::string(dir) + "/r";
  ASSERT_EQ(symlink("/dev/urandom", link.c_str()), 0);
  auto channel = MakeListenerChannel("/", false, kSeed);
  ASSERT_TRUE(channel.ok());
  int report[2];
  ASSERT_EQ(pipe2(report, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(report[0]);
    Child(channel->child.get(), report[1], link);
  }
  close(report[1]);
  channel->child.reset();
  Seen seen;
  {
    SeccompListener listener(std::move(channel->supervisor), false, 0, kSeed);
    while (listener.fd() >= 0) {
      struct pollfd p = {listener.fd(), POLLIN, 0};
      if (poll(&p, 1, 20000) <= 0) break;
      listener.OnReady(p.revents);
    }
    ASSERT_EQ(read(report[0], &seen, sizeof(seen)), static_cast<ssize_t>(sizeof(seen)));
    ASSERT_EQ(listener.denied().size(), 1u) << "the set-uid open is counted as a denial";
  }
  close(report[0]);
  int status = -1;
  waitpid(pid, &status, 0);
  unlink(link.c_str());
  rmdir(dir);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Bytes(seen.absolute), Stream(1));
  EXPECT_EQ(Bytes(seen.random), Stream(2));
  EXPECT_EQ(Bytes(seen.relative), Stream(3));
  EXPECT_EQ(Bytes(seen.linked), Stream(4)) << "a symlink to the device is the device";
  EXPECT_TRUE(seen.absolute_fifo);
  EXPECT_TRUE(seen.absolute_cloexec);
  EXPECT_FALSE(seen.random_cloexec);
  EXPECT_TRUE(seen.relative_nonblock);
  EXPECT_TRUE(seen.null_is_device) << "another device is the kernel's";
  EXPECT_TRUE(seen.write_is_device) << "an open for writing is the kernel's";
  EXPECT_EQ(seen.big, 4 << 20);
  EXPECT_EQ(seen.denied, -1);
  EXPECT_EQ(seen.denied_errno, EPERM);
}

TEST(UrandomWatchTest, KernelAtLeast) {
  EXPECT_TRUE(KernelAtLeast("5.14.0", 5, 14));
  EXPECT_TRUE(KernelAtLeast("6.1.0-18-amd64", 5, 14));
  EXPECT_TRUE(KernelAtLeast("5.15", 5, 14));
  EXPECT_FALSE(KernelAtLeast("5.13.19", 5, 14));
  EXPECT_FALSE(KernelAtLeast("4.19.0", 5, 14));
  EXPECT_TRUE(KernelAtLeast("10.0", 5, 14));
  EXPECT_FALSE(KernelAtLeast("", 5, 14));
  EXPECT_FALSE(KernelAtLeast("6", 5, 14));
  EXPECT_FALSE(KernelAtLeast("x.y", 5, 14));
}

}  // namespace
}  // namespace agentbox
