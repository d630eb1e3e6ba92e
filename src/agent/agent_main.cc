// agentbox-agent: PID 1 of every persistent sandbox.
//
// Accepts connections on the listening socket it inherits as fd 3 (created by the host in a
// directory only the host can open; nothing inside the sandbox can reach it) and forks one
// handler per connection, so a slow or hung request never blocks another. As PID 1 it also reaps
// every orphan of the sandbox.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "agent/connection.h"
#include "spec/sandbox_spec.h"

namespace agentbox {
namespace {

constexpr int kListenFd = 3;

int RunAgent() {
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, nullptr);
  int sig_fd = ::signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  AgentContext context;
  context.workspace_fd = ::open(kWorkspaceDir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (sig_fd < 0 || context.workspace_fd < 0) {
    std::fprintf(stderr, "agentbox-agent: setup: %s\n", std::strerror(errno));
    return 1;
  }
  std::set<pid_t> handlers;
  struct pollfd pfds[2] = {{kListenFd, POLLIN, 0}, {sig_fd, POLLIN, 0}};
  for (;;) {
    if (::poll(pfds, 2, -1) < 0 && errno != EINTR) return 1;
    if (pfds[1].revents) {
      struct signalfd_siginfo info;
      while (::read(sig_fd, &info, sizeof(info)) > 0) {
      }
      pid_t pid;
      while ((pid = ::waitpid(-1, nullptr, WNOHANG)) > 0) handlers.erase(pid);
    }
    if (!pfds[0].revents) continue;
    int conn = ::accept4(kListenFd, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    context.handlers.assign(handlers.begin(), handlers.end());
    pid_t pid = ::fork();
    if (pid == 0) {
      ::sigprocmask(SIG_UNBLOCK, &chld, nullptr);
      ::close(kListenFd);
      ::close(sig_fd);
      ServeConnection(conn, context);
      ::_exit(0);
    }
    if (pid > 0) handlers.insert(pid);
    ::close(conn);
  }
}

}  // namespace
}  // namespace agentbox

int main() { return agentbox::RunAgent(); }
