// Output helpers shared by the subcommands.
#include <errno.h>
#include <unistd.h>

#include "app/cli.h"

namespace agentbox {
namespace {

void WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // our own stdout/stderr is gone: nothing useful left to do
    text.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

void WriteStdout(std::string_view text) { WriteAll(STDOUT_FILENO, text); }
void WriteStderr(std::string_view text) { WriteAll(STDERR_FILENO, text); }

void PrintError(std::string_view message) {
  // The contract promises ONE line: callers and scripts read it with a single `read`.
  std::string line = "agentbox: ";
  for (char c : message) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  line.push_back('\n');
  WriteStderr(line);
}

int FailWith(const Status& status) {
  PrintError(status.message());
  return kExitAgentboxFailed;
}

bool IsHelpRequest(const Args& args) {
  return args.size() == 1 && (args[0] == "-h" || args[0] == "--help");
}

}  // namespace agentbox
