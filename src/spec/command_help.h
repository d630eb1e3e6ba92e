// One subcommand's documentation, the single source of its `--help` text, its man page and its
// shell completions (app/main.cc holds the table of them; the build makes the man pages and
// completion scripts with the hidden `agentbox __man` and `agentbox __completion`), so the three
// cannot drift from each other or from the flags the parser accepts. Pure: no I/O.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "spec/cli_flags.h"

namespace agentbox {

struct CommandHelp {
  std::string_view name;     // "ls"; "agentbox" for the program itself
  std::string_view summary;  // one line, no period: `agentbox --help`'s list, the man page NAME
  // The forms after "agentbox ", one per line: "ls [OPTIONS]\nls -q".
  std::string_view usage;
  // Text: lines of a paragraph are joined and rewrapped; an empty line ends a paragraph; a line
  // starting with two spaces is shown as it is (an example).
  std::string_view description;
  std::span<const FlagDef> flags;
  std::string_view notes;  // after the options, in the description's format
  // The positional arguments, for completions: space-separated kinds, the last repeating:
  // "sandbox", "proc", "path", "command", or "word:a|b|c" (one of those words).
  std::string_view operands;
};

// The text of `agentbox NAME --help`: usage, description, "Options:" (FormatFlagHelp), notes.
std::string FormatHelp(const CommandHelp& help);

// The man page (roff, man(7) macros) agentbox-NAME(1), or agentbox(1) for the program, whose
// page also lists `commands`.
std::string FormatManPage(const CommandHelp& help, std::string_view version,
                          std::span<const CommandHelp* const> commands = {});

// The text in the description's format rendered for a terminal, wrapped at `width`.
std::string FormatHelpText(std::string_view text, size_t width);

}  // namespace agentbox
