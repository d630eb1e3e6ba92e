// `exec -t`: this process's own terminal as a terminal exec's client (core/terminal_input.h).
// Its window size is the command's, and follows SIGWINCH; with -i its stdin is typed into the
// command's terminal, in raw mode when stdin is a terminal (so Ctrl-C is a key for the command,
// not a signal for agentbox), restored however the exec ends. SIGINT, SIGTERM and SIGHUP to
// agentbox end the exec as a client hanging up does.
#pragma once

#include <termios.h>

#include <memory>
#include <optional>

#include "base/status.h"
#include "core/terminal_input.h"
#include "sys/unique_fd.h"

namespace agentbox {

class CliTerminal : public TerminalInput {
 public:
  static StatusOr<std::unique_ptr<CliTerminal>> Open(bool forward_input);
  ~CliTerminal() override;  // restores stdin's terminal mode and the signal mask
  CliTerminal(const CliTerminal&) = delete;
  CliTerminal& operator=(const CliTerminal&) = delete;

  // The size of the terminal agentbox runs on (stdin, stdout or stderr), or 24x80.
  static WindowSize CurrentSize();

  int fd() const override { return epoll_.get(); }
  std::vector<TerminalEvent> Read() override;

 private:
  CliTerminal() = default;
  bool Watch(int fd);  // false with errno set
  void ReadSignals(std::vector<TerminalEvent>& events);
  void ReadStdin(std::vector<TerminalEvent>& events);

  UniqueFd epoll_, signals_;
  // A stdin epoll cannot watch (a regular file): this eventfd stays readable until its EOF.
  UniqueFd file_input_;
  bool input_open_ = false;
  std::optional<struct termios> saved_mode_;
  sigset_t saved_mask_;
};

}  // namespace agentbox
