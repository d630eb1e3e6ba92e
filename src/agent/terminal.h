// A terminal exec's PTY on the agent's side (ExecRequest::tty): the command gets the slave as
// its stdin, stdout and stderr; the agent reads its output from the master and, on a thread of
// its own, writes the client's keystrokes (kData frames) to the master and applies its window
// sizes (kResize frames) while the command runs. The kernel's line discipline does the rest:
// Ctrl-C becomes SIGINT for the foreground process group, a resize SIGWINCH; where it does not
// (gVisor's, agent/terminal_signals.h), the input thread sends them.
#pragma once

#include <memory>

#include "agent/client_input.h"
#include "agent/terminal_signals.h"
#include "base/status.h"
#include "proto/terminal_wire.h"
#include "sys/unique_fd.h"

namespace agentbox {

class Terminal {
 public:
  // A new PTY of the sandbox's own devpts, of `size`; the slave belongs to the sandbox user.
  // Probes what the kernel's line discipline signals (it forks: call it while single-threaded).
  static StatusOr<std::unique_ptr<Terminal>> Open(WindowSize size);
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  int slave() const { return slave_.get(); }

  // Once the command runs: the agent lets go of the slave, so the command's tree ending hangs
  // the master up (EIO: the output's end), and takes the master's output end for supervision.
  StatusOr<UniqueFd> TakeOutput();

  // Serves the client's frames on conn_fd from now on. The returned fd is the supervision's
  // client: it reads EOF once the client hung up or sent what is no terminal frame. `init`: the
  // command's init, which forwards a signal to the command's process group (for the signals the
  // agent sends itself where the kernel cannot name the terminal's foreground group).
  StatusOr<int> ServeInput(int conn_fd, pid_t init);

 private:
  Terminal(UniqueFd master, UniqueFd slave)
      : master_(std::move(master)), slave_(std::move(slave)) {}
  void InputLoop(int conn_fd);
  // Keys as typed: where the kernel does not signal on INTR/QUIT/SUSP, those keys are not
  // input but the signal, sent here.
  void TypeKeys(int conn_fd, std::string_view keys);
  void Resize(WindowSize size);
  void SignalForeground(int signal);
  void WriteInput(int conn_fd, std::string_view bytes);

  UniqueFd master_, slave_;
  KernelTerminalSignals kernel_;
  pid_t init_ = -1;
  ClientInputThread input_;  // last: stopped before the terminal closes
};

}  // namespace agentbox
