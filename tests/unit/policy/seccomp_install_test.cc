// DefaultSeccompProgram() installed for real, in a forked child: the kernel accepts it and real
// syscalls get the decisions the table promises. Needs no privileges (no_new_privs suffices).
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "policy/seccomp_program.h"

namespace agentbox {
namespace {

static_assert(sizeof(BpfInstruction) == sizeof(sock_filter));
static_assert(offsetof(BpfInstruction, k) == offsetof(sock_filter, k));

// Installs the filter in the calling process; returns 0 or the errno of the failed step.
int InstallDefaultFilter() {
  const auto& program = DefaultSeccompProgram();
  sock_fprog fprog{};
  fprog.len = static_cast<unsigned short>(program.size());
  fprog.filter = reinterpret_cast<sock_filter*>(const_cast<BpfInstruction*>(program.data()));
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) return errno;
  return 0;
}

struct ChildOutcome {
  int wait_status = 0;
  std::string failures;  // one line per failed check, written by the child
};

// Forks; the child installs the filter, runs `checks` (which report through `fail`) and exits 0.
ChildOutcome RunFiltered(
    const std::function<void(const std::function<void(const char*)>&)>& checks) {
  int fds[2];
  EXPECT_EQ(pipe2(fds, O_CLOEXEC), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const rlimit no_core{0, 0};  // the SIGSYS kills below would otherwise dump core
    setrlimit(RLIMIT_CORE, &no_core);
    auto fail = [fd = fds[1]](const char* what) {
      dprintf(fd, "%s (errno %d: %s)\n", what, errno, strerror(errno));
    };
    if (int err = InstallDefaultFilter(); err != 0) {
      errno = err;
      fail("installing the filter");
      _exit(1);
    }
    checks(fail);
    _exit(0);
  }
  close(fds[1]);
  ChildOutcome outcome;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) outcome.failures.append(buf, n);
  close(fds[0]);
  EXPECT_EQ(waitpid(pid, &outcome.wait_status, 0), pid);
  return outcome;
}

#define CHECK_DENIED(call, err)                      \
  do {                                               \
    errno = 0;                                       \
    if ((call) != -1 || errno != (err)) fail(#call); \
  } while (0)
#define CHECK_WORKS(call)          \
  do {                             \
    if ((call) == -1) fail(#call); \
  } while (0)

TEST(SeccompInstall, KernelAcceptsTheFilterAndDeniesForReal) {
  char path[] = "/tmp/agentbox_seccomp_XXXXXX";
  const int file = mkstemp(path);
  ASSERT_GE(file, 0);
  const ChildOutcome outcome = RunFiltered([&](const auto& fail) {
    if (getpid() <= 0 || getpid() != syscall(SYS_getpid)) fail("getpid");
    CHECK_DENIED(ptrace(PTRACE_TRACEME, 0, nullptr, nullptr), EPERM);
    CHECK_DENIED(unshare(CLONE_NEWUSER), EPERM);
    CHECK_DENIED(unshare(CLONE_NEWNS), EPERM);
    CHECK_DENIED(chmod(path, 04755), EPERM);
    CHECK_DENIED(fchmod(file, 02755), EPERM);
    CHECK_WORKS(chmod(path, 0755));
    CHECK_DENIED(syscall(SYS_ioctl, file, 0x100005412UL, "x"), EPERM);
    CHECK_DENIED(socket(AF_PACKET, SOCK_RAW, 0), EAFNOSUPPORT);
    CHECK_DENIED(socket(AF_ALG, SOCK_SEQPACKET, 0), EAFNOSUPPORT);
    CHECK_WORKS(socket(AF_UNIX, SOCK_STREAM, 0));
    CHECK_DENIED(personality(0x0040000 /* ADDR_NO_RANDOMIZE */), EPERM);
    CHECK_WORKS(personality(0xffffffff));
    // glibc's pthread_create tries clone3 first; ENOSYS must make it fall back to clone.
    bool ran = false;
    std::thread([&] { ran = true; }).join();
    if (!ran) fail("std::thread");
    const pid_t child = fork();
    if (child == 0) _exit(7);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || WEXITSTATUS(status) != 7) fail("fork");
  });
  close(file);
  unlink(path);
  EXPECT_EQ(outcome.failures, "");
  EXPECT_TRUE(WIFEXITED(outcome.wait_status) && WEXITSTATUS(outcome.wait_status) == 0)
      << "wait status " << outcome.wait_status;
}

#if defined(__x86_64__)
// The x32 ABI (syscall numbers with bit 30) would bypass every rule: the filter kills instead.
TEST(SeccompInstall, X32SyscallKillsTheProcess) {
  const ChildOutcome outcome = RunFiltered([](const auto& fail) {
    syscall(0x40000000 | SYS_getpid);
    fail("survived an x32 syscall");
  });
  EXPECT_EQ(outcome.failures, "");
  EXPECT_TRUE(WIFSIGNALED(outcome.wait_status) && WTERMSIG(outcome.wait_status) == SIGSYS)
      << "wait status " << outcome.wait_status;
}

// int 0x80 enters the i386 ABI, whose numbers differ: the filter kills on the arch check.
TEST(SeccompInstall, I386SyscallKillsTheProcess) {
  const ChildOutcome outcome = RunFiltered([](const auto& fail) {
    long ret = 20;  // i386 getpid
    asm volatile("int $0x80" : "+a"(ret) : : "memory");
    fail("survived an i386 syscall");
  });
  if (WIFSIGNALED(outcome.wait_status) && WTERMSIG(outcome.wait_status) == SIGSEGV) {
    GTEST_SKIP() << "this kernel has no IA32 emulation (int 0x80 faults before seccomp)";
  }
  EXPECT_EQ(outcome.failures, "");
  EXPECT_TRUE(WIFSIGNALED(outcome.wait_status) && WTERMSIG(outcome.wait_status) == SIGSYS)
      << "wait status " << outcome.wait_status;
}
#endif

}  // namespace
}  // namespace agentbox
