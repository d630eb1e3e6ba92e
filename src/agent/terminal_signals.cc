#include "agent/terminal_signals.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <utility>

#include "sys/file_util.h"

namespace agentbox {
namespace {

// A hang guard only: the child answers within a millisecond or two.
constexpr int kProbeTimeoutMs = 5000;
constexpr char kTyped[] = "\x03x\n";  // Ctrl-C, then a line the child's read returns
constexpr char kAfterResize[] = "y\n";

// The child: a session of its own whose controlling terminal is `slave`, SIGINT and SIGWINCH
// blocked so they stay pending. It says it is ready, reads the two lines the parent types (the
// first after Ctrl-C, the second after a resize), and answers which signals came meanwhile.
// Async-signal-safe only: the parent may have threads.
[[noreturn]] void ProbeChild(int slave, int ready, int answer) {
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGINT);
  sigaddset(&blocked, SIGWINCH);
  ::sigprocmask(SIG_BLOCK, &blocked, nullptr);
  if (::setsid() < 0 || ::ioctl(slave, TIOCSCTTY, 0) != 0) ::_exit(1);
  if (::write(ready, "r", 1) != 1) ::_exit(1);
  char buf[64];
  for (int lines = 0; lines < 2;) {
    ssize_t n = ::read(slave, buf, sizeof(buf));
    if (n <= 0) ::_exit(1);
    for (ssize_t i = 0; i < n; ++i) lines += buf[i] == '\n';
  }
  sigset_t pending;
  ::sigpending(&pending);
  const char seen = static_cast<char>((sigismember(&pending, SIGINT) ? 1 : 0) |
                                      (sigismember(&pending, SIGWINCH) ? 2 : 0));
  ::_exit(::write(answer, &seen, 1) == 1 ? 0 : 1);
}

bool ReadByte(int fd, char* byte) {
  struct pollfd pfd = {fd, POLLIN, 0};
  return ::poll(&pfd, 1, kProbeTimeoutMs) == 1 && ::read(fd, byte, 1) == 1;
}

// Types Ctrl-C, resizes, and reads the child's answer. False when it never came.
bool Drive(int master, int ready, int answer, char* seen) {
  char byte;
  if (!ReadByte(ready, &byte)) return false;
  if (::write(master, kTyped, sizeof(kTyped) - 1) != sizeof(kTyped) - 1) return false;
  struct winsize size = {};
  size.ws_row = 42;
  size.ws_col = 101;
  if (::ioctl(master, TIOCSWINSZ, &size) != 0) return false;
  if (::write(master, kAfterResize, sizeof(kAfterResize) - 1) != sizeof(kAfterResize) - 1) {
    return false;
  }
  return ReadByte(answer, seen);
}

}  // namespace

UniqueFd OpenPtySlave(int master) {
  int fd = ::ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd >= 0) return UniqueFd(fd);
  char name[PATH_MAX];
  if (::ptsname_r(master, name, sizeof(name)) != 0) return UniqueFd();
  return UniqueFd(::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
}

KernelTerminalSignals ProbeTerminalSignals() {
  KernelTerminalSignals kernel;
  UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master || ::unlockpt(master.get()) != 0) return kernel;
  UniqueFd slave = OpenPtySlave(master.get());
  auto ready = MakePipe();
  auto answer = MakePipe();
  if (!slave || !ready.ok() || !answer.ok()) return kernel;
  const pid_t pid = ::fork();
  if (pid < 0) return kernel;
  if (pid == 0) ProbeChild(slave.get(), ready->write.get(), answer->write.get());
  slave.reset();
  ready->write.reset();
  answer->write.reset();
  char seen = 0;
  if (Drive(master.get(), ready->read.get(), answer->read.get(), &seen)) {
    kernel.on_keys = (seen & 1) != 0;
    kernel.on_resize = (seen & 2) != 0;
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return kernel;
}

int SignalOfKey(const struct termios& mode, unsigned char key) {
  if (!(mode.c_lflag & ISIG)) return 0;
  constexpr std::pair<int, int> kKeys[] = {{VINTR, SIGINT}, {VQUIT, SIGQUIT}, {VSUSP, SIGTSTP}};
  for (const auto& [index, signal] : kKeys) {
    const cc_t c = mode.c_cc[index];
    if (c != _POSIX_VDISABLE && c == key) return signal;
  }
  return 0;
}

}  // namespace agentbox
