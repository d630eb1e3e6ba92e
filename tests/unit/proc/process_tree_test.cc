// KillAndReapChildren: a subreaper kills a whole tree without a PID namespace.
#include "proc/process_tree.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

namespace agentbox {
namespace {

// Runs body in a forked child that is a subreaper; the child's exit status is the result.
int InSubreaper(int (*body)(int report_fd), std::vector<pid_t>* reported) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) ::_exit(90);
    ::_exit(body(fds[1]));
  }
  ::close(fds[1]);
  std::string text;
  char buf[256];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    if (end > pos) reported->push_back(std::stoi(text.substr(pos, end - pos)));
    pos = end + 1;
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

// A tree that tries every way out: setsid, double fork (the middle shell exits), SIGTERM
// ignored, a stopped process. Every sleeper writes its pid to report_fd.
int SpawnEvasiveTreeThenKill(int report_fd) {
  std::string script = "setsid sh -c 'sleep 1000 & echo -n \"$! \" >&" + std::to_string(report_fd) +
                       "; trap \"\" TERM; sleep 1000 & kill -STOP $!; echo -n \"$! \" >&" +
                       std::to_string(report_fd) + "' & wait";
  pid_t shell = ::fork();
  if (shell == 0) {
    ::execl("/bin/sh", "sh", "-c", script.c_str(), nullptr);
    ::_exit(127);
  }
  // The outer shell's `wait` returns once the middle shell has exited, after its last echo:
  // then its sleepers are our children (the event itself, not a guess of how long it takes).
  ::waitpid(shell, nullptr, 0);
  int children = 0;
  ForEachChild([](pid_t, void* n) { ++*static_cast<int*>(n); }, &children);
  if (children < 2) return 91;
  KillAndReapChildren();
  int left = 0;
  ForEachChild([](pid_t, void* n) { ++*static_cast<int*>(n); }, &left);
  if (left != 0) return 92;
  return ::waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD ? 0 : 93;
}

TEST(ProcessTree, SubreaperKillsSetsidDoubleForkedStoppedAndTermIgnoringProcesses) {
  std::vector<pid_t> sleepers;
  EXPECT_EQ(InSubreaper(SpawnEvasiveTreeThenKill, &sleepers), 0);
  ASSERT_EQ(sleepers.size(), 2u);
  for (pid_t pid : sleepers) {
    errno = 0;
    EXPECT_NE(::kill(pid, 0), 0) << "pid " << pid << " survived";
    EXPECT_EQ(errno, ESRCH);
  }
}

TEST(ProcessTree, NoChildrenReturnsAtOnce) {
  std::vector<pid_t> none;
  EXPECT_EQ(InSubreaper(
                [](int) {
                  KillAndReapChildren();
                  return 0;
                },
                &none),
            0);
}

}  // namespace
}  // namespace agentbox
