// A small getopt for the subcommands: one table of flags per subcommand, which also renders help.
//
// Accepts "--name value", "--name=value", "-x value", "-xvalue" and "-xy" (flags without a value
// written together). Options end at "--" (which is
// consumed) or at the first argument that is not an option (which is kept): the rest belongs to
// the command, so `agentbox run ls -la` runs `ls -la`. Pure: no I/O.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox {

struct FlagDef {
  std::string_view long_name;           // without "--", e.g. "memory"
  char short_name;                      // e.g. 'e', or 0 for none
  std::string_view value_name;          // e.g. "SIZE"; empty for a flag that takes no value
  std::string_view help;                // one sentence; --help wraps it
  std::string_view default_value = {};  // shown as "(default: X)"; empty for none
  bool hidden = false;                  // parsed, but in no help, man page or completion
};

struct ParsedFlag {
  const FlagDef* def;
  std::string value;  // empty for flags without a value
};

struct ParsedArgs {
  std::vector<ParsedFlag> flags;  // in command-line order, repeats kept
  std::vector<std::string> rest;  // everything after the options
};

// Fails with kInvalidArgument on an unknown option, a missing value, or a value given to a flag
// that takes none; the message names the option.
StatusOr<ParsedArgs> ParseFlags(std::span<const FlagDef> defs,
                                const std::vector<std::string>& args);

// As ParseFlags, but options may come after operands too (`rm ID -f`, as docker takes them), for
// subcommands that run no command: every argument that is no option is an operand in `rest`,
// and "--" ends the options.
StatusOr<ParsedArgs> ParseFlagsInterspersed(std::span<const FlagDef> defs,
                                            const std::vector<std::string>& args);

// "  -e, --env KEY=VALUE   add to the environment" lines, one per flag, the help column aligned
// and wrapped at 80 columns, each default shown as "(default: X)". Hidden flags are left out.
std::string FormatFlagHelp(std::span<const FlagDef> defs);

// The help sentence of `def` with its default: "add to the environment (default: none)".
std::string FlagHelpText(const FlagDef& def);

}  // namespace agentbox
