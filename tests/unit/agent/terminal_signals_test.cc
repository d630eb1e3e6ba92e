#include "agent/terminal_signals.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace agentbox {
namespace {

struct termios Cooked() {
  struct termios mode = {};
  mode.c_lflag = ISIG | ICANON | ECHO;
  mode.c_cc[VINTR] = 0x03;
  mode.c_cc[VQUIT] = 0x1c;
  mode.c_cc[VSUSP] = 0x1a;
  mode.c_cc[VEOF] = 0x04;
  return mode;
}

TEST(TerminalSignalsTest, KeysThatSignalUnderIsig) {
  const struct termios mode = Cooked();
  EXPECT_EQ(SignalOfKey(mode, 0x03), SIGINT);
  EXPECT_EQ(SignalOfKey(mode, 0x1c), SIGQUIT);
  EXPECT_EQ(SignalOfKey(mode, 0x1a), SIGTSTP);
  EXPECT_EQ(SignalOfKey(mode, 0x04), 0);  // EOF is input to the line discipline, no signal
  EXPECT_EQ(SignalOfKey(mode, 'a'), 0);
}

TEST(TerminalSignalsTest, NoneInRawModeOrForADisabledCharacter) {
  struct termios raw = Cooked();
  raw.c_lflag &= ~ISIG;  // what an editor or a raw-mode REPL sets: Ctrl-C is a key
  EXPECT_EQ(SignalOfKey(raw, 0x03), 0);
  struct termios disabled = Cooked();
  disabled.c_cc[VINTR] = _POSIX_VDISABLE;
  EXPECT_EQ(SignalOfKey(disabled, _POSIX_VDISABLE), 0);
  EXPECT_EQ(SignalOfKey(disabled, 0x03), 0);
}

// This host runs Linux, whose line discipline does both: the agent must then send neither, or
// every Ctrl-C would arrive twice.
TEST(TerminalSignalsTest, LinuxSignalsByItself) {
  KernelTerminalSignals kernel = ProbeTerminalSignals();
  EXPECT_TRUE(kernel.on_keys);
  EXPECT_TRUE(kernel.on_resize);
}

}  // namespace
}  // namespace agentbox
