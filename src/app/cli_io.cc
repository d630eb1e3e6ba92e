// Output helpers shared by the subcommands.
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

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

namespace {
int status_fd = -1;  // AdoptStatusFd's
}  // namespace

void AdoptStatusFd() {
  const char* value = std::getenv("AGENTBOX_STATUS_FD");
  if (value == nullptr) return;
  const int fd = std::atoi(value);
  ::unsetenv("AGENTBOX_STATUS_FD");  // nothing this process starts inherits the duty
  // Close-on-exec: no command, agent or helper started from here gets the fd.
  if (fd > 2 && ::fcntl(fd, F_SETFD, FD_CLOEXEC) == 0) status_fd = fd;
}

int FailWith(const Status& status) {
  PrintError(status.message());
  if (status_fd >= 0) {
    WriteAll(status_fd, StatusCodeName(status.code()));
    status_fd = -1;
  }
  return kExitAgentboxFailed;
}

bool IsHelpRequest(const Args& args) {
  return args.size() == 1 && (args[0] == "-h" || args[0] == "--help");
}

std::optional<ParsedArgs> ParseOrHelp(const CommandHelp& help, const Args& args, int* exit) {
  auto parsed = ParseFlagsInterspersed(help.flags, args);
  if (!parsed.ok()) {
    *exit = FailWith(parsed.status().WithContext(std::string(help.name)));
    return std::nullopt;
  }
  if (HasFlag(*parsed, "help")) {
    WriteStdout(FormatHelp(help));
    *exit = 0;
    return std::nullopt;
  }
  return std::move(*parsed);
}

bool HasFlag(const ParsedArgs& parsed, std::string_view name) {
  return FlagValue(parsed, name) != nullptr;
}

const std::string* FlagValue(const ParsedArgs& parsed, std::string_view name) {
  const std::string* value = nullptr;
  for (const ParsedFlag& flag : parsed.flags) {
    if (flag.def->long_name == name) value = &flag.value;
  }
  return value;
}

bool TakeFlag(Args& args, std::string_view flag) {
  const size_t before = args.size();
  std::erase(args, flag);
  return args.size() != before;
}

}  // namespace agentbox
