// Shell completion scripts for agentbox, made from the same help tables as `--help` and the man
// pages (command_help.h), so a flag the parser takes is a flag the shell offers. Pure: no I/O.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "spec/command_help.h"

namespace agentbox {

// The completion script for `shell` ("bash", "zsh" or "fish") offering `commands`, their flags
// and their operands (sandboxes through `agentbox ls --format '{{.ID}}'`, paths, commands).
// kInvalidArgument for another shell.
StatusOr<std::string> FormatCompletion(std::string_view shell,
                                       std::span<const CommandHelp* const> commands);

}  // namespace agentbox
