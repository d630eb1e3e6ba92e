#include "agent/terminal.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <climits>

#include "agent/agent_user.h"
#include "proto/agent_protocol.h"
#include "spec/sandbox_spec.h"

namespace agentbox {
namespace {

void SetWindowSize(int master, WindowSize size) {
  struct winsize ws = {};
  ws.ws_row = size.rows;
  ws.ws_col = size.cols;
  (void)::ioctl(master, TIOCSWINSZ, &ws);  // the kernel sends SIGWINCH to the foreground group
}

}  // namespace

StatusOr<std::unique_ptr<Terminal>> Terminal::Open(WindowSize size) {
  // O_NOCTTY: the agent, a session leader, must never take the terminal for itself.
  UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master) return ErrnoStatus("terminal: open /dev/ptmx");
  if (::unlockpt(master.get()) != 0) return ErrnoStatus("terminal: unlockpt");
  UniqueFd slave = OpenPtySlave(master.get());
  if (!slave) return ErrnoStatus("terminal: open the slave");
  // As grantpt would: the sandbox user's, not writable by others. As the namespace's root the
  // native agent may; a container's agent is that user already.
  (void)::fchown(slave.get(), AgentUser().uid, AgentUser().gid);
  (void)::fchmod(slave.get(), 0620);
  SetWindowSize(master.get(), size);
  // Never blocks: a command that reads no input must not stall the input thread's shutdown.
  if (::fcntl(master.get(), F_SETFL, O_NONBLOCK) != 0) return ErrnoStatus("terminal: fcntl");
  std::unique_ptr<Terminal> terminal(new Terminal(std::move(master), std::move(slave)));
  terminal->kernel_ = ProbeTerminalSignals();
  return terminal;
}

StatusOr<UniqueFd> Terminal::TakeOutput() {
  slave_.reset();
  UniqueFd out(::fcntl(master_.get(), F_DUPFD_CLOEXEC, 0));
  if (!out) return ErrnoStatus("terminal: dup");
  return out;
}

StatusOr<int> Terminal::ServeInput(int conn_fd, pid_t init) {
  init_ = init;
  return input_.Start(conn_fd, [this](int conn) { InputLoop(conn); });
}

// Frames until the client hangs up (or the thread is stopped).
void Terminal::InputLoop(int conn_fd) {
  for (;;) {
    auto frame = ReadFrame(conn_fd);
    if (!frame.ok()) return;
    if (frame->type == FrameType::kResize) {
      auto size = WindowSizeFromWire(frame->payload);
      if (!size.ok()) return;
      Resize(*size);
    } else if (frame->type == FrameType::kData && frame->payload.empty()) {
      // The end of the client's input, as a terminal says it: its EOF character (Ctrl-D).
      struct termios t = {};
      if (::tcgetattr(master_.get(), &t) == 0 && t.c_cc[VEOF] != _POSIX_VDISABLE) {
        WriteInput(conn_fd, std::string_view(reinterpret_cast<const char*>(&t.c_cc[VEOF]), 1));
      }
    } else if (frame->type == FrameType::kData) {
      TypeKeys(conn_fd, frame->payload);
    } else {
      return;
    }
  }
}

void Terminal::TypeKeys(int conn_fd, std::string_view keys) {
  struct termios mode = {};
  if (kernel_.on_keys || ::tcgetattr(master_.get(), &mode) != 0) return WriteInput(conn_fd, keys);
  size_t from = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const int signal = SignalOfKey(mode, static_cast<unsigned char>(keys[i]));
    if (signal == 0) continue;
    WriteInput(conn_fd, keys.substr(from, i - from));
    SignalForeground(signal);
    from = i + 1;
  }
  WriteInput(conn_fd, keys.substr(from));
}

void Terminal::Resize(WindowSize size) {
  struct winsize before = {};
  const bool known = ::ioctl(master_.get(), TIOCGWINSZ, &before) == 0;
  SetWindowSize(master_.get(), size);
  // As Linux: only a size that changed is signalled.
  if (!kernel_.on_resize && known && (before.ws_row != size.rows || before.ws_col != size.cols)) {
    SignalForeground(SIGWINCH);
  }
}

// The terminal's foreground process group, as the kernel would signal it (the agent may: it is
// the command's user in a container). gVisor's master cannot name that group (TIOCGPGRP fails):
// then the init forwards it to the command's own group (proc/command_steps.cc), which is the
// foreground one unless a job-control shell made another.
void Terminal::SignalForeground(int signal) {
  const pid_t group = ::tcgetpgrp(master_.get());
  if (group > 0) {
    (void)::kill(-group, signal);
  } else if (init_ > 0) {
    (void)::kill(init_, signal);
  }
}

// Waits for room while the command does not read, but gives up when the client goes (or the
// thread is stopped); once the tree is gone (EIO) input is dropped.
void Terminal::WriteInput(int conn_fd, std::string_view bytes) {
  (void)WriteWhileClientStays(master_.get(), conn_fd, bytes);
}

}  // namespace agentbox
