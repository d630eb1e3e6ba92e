// What a kernel's PTY does for the foreground process group of its terminal, and the agent's
// stand-in where it does not. Linux's line discipline sends SIGINT, SIGQUIT or SIGTSTP when the
// INTR, QUIT or SUSP character is typed (ISIG), and SIGWINCH when the window size changes.
// gVisor's (runsc 2022, Debian 12's) does neither, so Ctrl-C reached no command there and a
// resize no full-screen program; the agent (agent/terminal.h) then sends them itself. Whether
// the kernel does is probed, not guessed from its name: a kernel that does both would otherwise
// get every signal twice.
#pragma once

#include <termios.h>

#include "sys/unique_fd.h"

namespace agentbox {

struct KernelTerminalSignals {
  bool on_keys = true;    // ISIG: the INTR, QUIT and SUSP characters signal the group
  bool on_resize = true;  // TIOCSWINSZ that changes the size sends SIGWINCH
};

// Probes this kernel with a PTY of its own and a child in a session of its own (about a
// millisecond; the child is reaped before it returns). Must be called while the process has one
// thread (it forks). When the probe cannot run, the kernel is taken to do both, as Linux does.
KernelTerminalSignals ProbeTerminalSignals();

// The signal typing `key` raises on a terminal in mode `mode`, as n_tty's ISIG handling does;
// 0 for none (ISIG off, or no special character).
int SignalOfKey(const struct termios& mode, unsigned char key);

// The slave of `master` (unlocked already): by TIOCGPTPEER (Linux 4.13), so no other devpts
// can be swapped in, else by its name where the kernel lacks it (gVisor). Invalid on failure.
UniqueFd OpenPtySlave(int master);

}  // namespace agentbox
