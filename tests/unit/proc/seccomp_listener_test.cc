// The seccomp listener for real, in a forked child: the notifying filter with its listener sent
// over the channel, denials answered with the rule's errno and counted with the program's name;
// and the plain filter where no listener can be had. Needs no privileges (no_new_privs).
#include "proc/seccomp_listener.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "policy/seccomp_match.h"
#include "policy/seccomp_program.h"

namespace agentbox {
namespace {

// What the child saw: the errno of unshare(CLONE_NEWUSER) and of socket(AF_PACKET), twice.
struct Seen {
  int unshare_errno = 0, packet_errno = 0, packet_again_errno = 0, getpid_ok = 0;
};

// A filter attached with a listener kept open: while it is held, any later listener in the
// chain is EBUSY (a closed one frees its place).
void TakeTheOnlyListener() {
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {1, &allow};
  (void)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

[[noreturn]] void Child(int channel, int report, bool listener_taken) {
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (listener_taken) TakeTheOnlyListener();
  if (!AttachFilterAndSendListener(NotifyingSeccompProgram(), DefaultSeccompProgram(), channel)) {
    _exit(3);
  }
  Seen seen;
  seen.unshare_errno = unshare(CLONE_NEWUSER) == 0 ? 0 : errno;
  seen.packet_errno = socket(AF_PACKET, SOCK_RAW, 0) >= 0 ? 0 : errno;
  seen.packet_again_errno = socket(AF_PACKET, SOCK_DGRAM, 0) >= 0 ? 0 : errno;
  seen.getpid_ok = getpid() > 0;
  (void)!write(report, &seen, sizeof(seen));
  _exit(0);
}

struct Outcome {
  Seen seen;
  int status = -1;
  bool observed = false;
  std::vector<DeniedSyscall> denied;
};

Outcome RunProbe(bool listener_taken) {
  auto channel = MakeListenerChannel("/", false, std::nullopt);
  EXPECT_TRUE(channel.ok());
  int report[2];
  EXPECT_EQ(pipe2(report, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(report[0]);
    Child(channel->child.get(), report[1], listener_taken);
  }
  close(report[1]);
  channel->child.reset();
  SeccompListener listener(std::move(channel->supervisor), false, 0);
  Outcome out;
  // Until the child is gone: the listener hangs up when the filter's last process exits.
  while (listener.fd() >= 0) {
    struct pollfd p = {listener.fd(), POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) break;
    listener.OnReady(p.revents);
  }
  EXPECT_EQ(read(report[0], &out.seen, sizeof(out.seen)), static_cast<ssize_t>(sizeof(out.seen)));
  close(report[0]);
  waitpid(pid, &out.status, 0);
  out.observed = listener.observed();
  out.denied = listener.denied();
  return out;
}

TEST(SeccompListenerTest, DenialsAreAnsweredWithTheRulesErrnoAndCounted) {
  Outcome out = RunProbe(false);
  ASSERT_TRUE(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0) << out.status;
  EXPECT_EQ(out.seen.unshare_errno, EPERM);
  EXPECT_EQ(out.seen.packet_errno, EAFNOSUPPORT);
  EXPECT_EQ(out.seen.packet_again_errno, EAFNOSUPPORT);
  EXPECT_TRUE(out.seen.getpid_ok);
  EXPECT_TRUE(out.observed);
  ASSERT_EQ(out.denied.size(), 2u);
  ASSERT_NE(out.denied[0].rule, nullptr);
  EXPECT_EQ(SeccompRuleName(*out.denied[0].rule), "unshare");
  EXPECT_EQ(out.denied[0].count, 1u);
  EXPECT_FALSE(out.denied[0].process.empty()) << "the test binary's own name";
  ASSERT_NE(out.denied[1].rule, nullptr);
  EXPECT_EQ(SeccompRuleName(*out.denied[1].rule), "socket(AF_PACKET)");
  EXPECT_EQ(out.denied[1].count, 2u);
}

// No listener to be had (EBUSY here; EINVAL under gVisor): the plain filter, the same errnos
// from the kernel, and the supervisor told nothing is itemized.
TEST(SeccompListenerTest, WithoutAListenerThePlainFilterDeniesTheSame) {
  Outcome out = RunProbe(true);
  ASSERT_TRUE(WIFEXITED(out.status) && WEXITSTATUS(out.status) == 0) << out.status;
  EXPECT_EQ(out.seen.unshare_errno, EPERM);
  EXPECT_EQ(out.seen.packet_errno, EAFNOSUPPORT);
  EXPECT_FALSE(out.observed);
  EXPECT_TRUE(out.denied.empty());
}

}  // namespace
}  // namespace agentbox
