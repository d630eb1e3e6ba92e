#include "app/cli_terminal.h"

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace agentbox {
namespace {

sigset_t TerminalSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGWINCH, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

}  // namespace

WindowSize CliTerminal::CurrentSize() {
  for (int fd : {0, 1, 2}) {
    struct winsize ws = {};
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
      return WindowSize{static_cast<uint16_t>(std::min<unsigned>(ws.ws_row, 1000)),
                        static_cast<uint16_t>(std::min<unsigned>(ws.ws_col, 1000))};
    }
  }
  return WindowSize{};
}

StatusOr<std::unique_ptr<CliTerminal>> CliTerminal::Open(bool forward_input) {
  std::unique_ptr<CliTerminal> t(new CliTerminal());
  sigset_t set = TerminalSignals();
  ::sigprocmask(SIG_BLOCK, &set, &t->saved_mask_);
  t->epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  t->signals_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!t->epoll_ || !t->signals_) return ErrnoStatus("terminal: epoll/signalfd");
  if (!t->Watch(t->signals_.get())) return ErrnoStatus("terminal: epoll_ctl");
  if (!forward_input) return t;
  t->input_open_ = true;
  if (!t->Watch(0)) {
    if (errno != EPERM) return ErrnoStatus("terminal: epoll_ctl stdin");
    t->file_input_.reset(::eventfd(1, EFD_CLOEXEC));
    if (!t->file_input_ || !t->Watch(t->file_input_.get())) {
      return ErrnoStatus("terminal: eventfd");
    }
  }
  struct termios mode = {};
  if (::isatty(0) && ::tcgetattr(0, &mode) == 0) {
    t->saved_mode_ = mode;
    ::cfmakeraw(&mode);
    if (::tcsetattr(0, TCSADRAIN, &mode) != 0) return ErrnoStatus("terminal: raw mode");
  }
  return t;
}

CliTerminal::~CliTerminal() {
  if (saved_mode_) ::tcsetattr(0, TCSADRAIN, &*saved_mode_);
  ::sigprocmask(SIG_SETMASK, &saved_mask_, nullptr);
}

bool CliTerminal::Watch(int fd) {
  struct epoll_event event = {};
  event.events = EPOLLIN;
  event.data.fd = fd;
  return ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) == 0;
}

std::vector<TerminalEvent> CliTerminal::Read() {
  std::vector<TerminalEvent> events;
  ReadSignals(events);
  if (input_open_) ReadStdin(events);
  return events;
}

void CliTerminal::ReadSignals(std::vector<TerminalEvent>& events) {
  struct signalfd_siginfo info;
  while (::read(signals_.get(), &info, sizeof(info)) == sizeof(info)) {
    if (info.ssi_signo == SIGWINCH) {
      events.push_back({TerminalEvent::Kind::kResize, "", CurrentSize()});
    } else {
      events.push_back({TerminalEvent::Kind::kHangUp, "", {}});
    }
  }
}

// One read: a terminal's stdin in raw mode gives what was typed; a pipe or file what is there.
void CliTerminal::ReadStdin(std::vector<TerminalEvent>& events) {
  if (!file_input_) {
    struct pollfd ready = {0, POLLIN, 0};
    if (::poll(&ready, 1, 0) <= 0) return;  // a signal woke us, not stdin
  }
  char buf[16 * 1024];
  ssize_t n = ::read(0, buf, sizeof(buf));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n > 0) {
    events.push_back({TerminalEvent::Kind::kInput, std::string(buf, static_cast<size_t>(n)), {}});
    return;
  }
  input_open_ = false;
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, file_input_ ? file_input_.get() : 0, nullptr);
  events.push_back({TerminalEvent::Kind::kEndOfInput, "", {}});
}

}  // namespace agentbox
