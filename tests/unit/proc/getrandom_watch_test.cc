// The getrandom watch for real, in a forked child (proc/getrandom_watch.h): the child's
// getrandom(2) reads the seed's stream through the listener, a large call gets a short count,
// a bad buffer EFAULT; and without a listener a seeded filter is not attached at all. Needs no
// privileges (no_new_privs).
#include "proc/getrandom_watch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "policy/seccomp_program.h"
#include "proc/seccomp_listener.h"

namespace agentbox {
namespace {

struct Seen {
  unsigned char first[12] = {}, second[4] = {};
  long first_n = 0, second_n = 0, big_n = 0, fault_n = 0, fault_errno = 0;
};

[[noreturn]] void Child(int channel, int report) {
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  static const std::vector<BpfInstruction> watched = WithGetrandomWatch(NotifyingSeccompProgram());
  if (!AttachFilterAndSendListener(watched, {}, channel)) _exit(3);
  Seen seen;
  // The raw call: glibc's getrandom() is the same syscall, but the compiler checks its buffer.
  seen.first_n = syscall(SYS_getrandom, seen.first, sizeof(seen.first), 0);
  seen.second_n = syscall(SYS_getrandom, seen.second, sizeof(seen.second), GRND_NONBLOCK);
  const size_t big = kMaxGetrandomBytes + 4096;
  void* buf = mmap(nullptr, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  seen.big_n = syscall(SYS_getrandom, buf, big, 0);
  seen.fault_n = syscall(SYS_getrandom, 8UL, 8UL, 0);
  seen.fault_errno = errno;
  (void)!write(report, &seen, sizeof(seen));
  _exit(0);
}

TEST(GetrandomWatchTest, TheChildReadsTheSeedsStream) {
  auto channel = MakeListenerChannel("/", false, 0);
  ASSERT_TRUE(channel.ok());
  int report[2];
  ASSERT_EQ(pipe2(report, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(report[0]);
    Child(channel->child.get(), report[1]);
  }
  close(report[1]);
  channel->child.reset();
  SeccompListener listener(std::move(channel->supervisor), false, 0, uint64_t{0});
  while (listener.fd() >= 0) {
    struct pollfd p = {listener.fd(), POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) break;
    listener.OnReady(p.revents);
  }
  Seen seen;
  ASSERT_EQ(read(report[0], &seen, sizeof(seen)), static_cast<ssize_t>(sizeof(seen)));
  close(report[0]);
  int status = -1;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  SeededRandom expected(0);
  unsigned char want[16];
  expected.Fill(want, sizeof(want));
  EXPECT_EQ(seen.first_n, 12);
  EXPECT_EQ(std::memcmp(seen.first, want, 12), 0);
  EXPECT_EQ(seen.second_n, 4);
  EXPECT_EQ(std::memcmp(seen.second, want + 12, 4), 0) << "one stream across calls";
  EXPECT_EQ(seen.big_n, static_cast<long>(kMaxGetrandomBytes)) << "a short count";
  EXPECT_EQ(seen.fault_n, -1);
  EXPECT_EQ(seen.fault_errno, EFAULT);
}

// A seeded command's filter has no fallback: where no listener can be had (EBUSY here; gVisor
// EINVAL) it fails rather than read the kernel's randomness.
TEST(GetrandomWatchTest, NoListenerNoSeededFilter) {
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {1, &allow};
    (void)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    int pair[2];
    if (pipe2(pair, O_CLOEXEC) != 0) _exit(4);
    static const std::vector<BpfInstruction> watched =
        WithGetrandomWatch(NotifyingSeccompProgram());
    _exit(AttachFilterAndSendListener(watched, {}, pair[1]) ? 0 : 7);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7) << status;
}

}  // namespace
}  // namespace agentbox
