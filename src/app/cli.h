// The `agentbox` command line: one function per subcommand, dispatched from one table in main.cc.
//
// Each subcommand gets the arguments after its name and returns the process exit status. Errors
// are reported exactly once, here at the front end: one "agentbox: ..." line on stderr, exit 125.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "spec/command_help.h"

namespace agentbox {

inline constexpr int kExitAgentboxFailed = 125;  // docs/contract.md §1: agentbox itself failed

using Args = std::vector<std::string>;

int RunSubcommand(const Args& args);         // cli_run.cc
int DoctorSubcommand(const Args& args);      // cli_doctor.cc
int VersionSubcommand(const Args& args);     // cli_version.cc
int CreateSubcommand(const Args& args);      // cli_create.cc
int ExecSubcommand(const Args& args);        // cli_exec.cc
int LsSubcommand(const Args& args);          // cli_ls.cc
int InspectSubcommand(const Args& args);     // cli_ls.cc
int CpSubcommand(const Args& args);          // cli_cp.cc
int RmSubcommand(const Args& args);          // cli_rm.cc
int GcSubcommand(const Args& args);          // cli_rm.cc
int McpSubcommand(const Args& args);         // cli_mcp.cc
int ServeSubcommand(const Args& args);       // cli_serve.cc
int ImageSubcommand(const Args& args);       // cli_image.cc
int PoolSubcommand(const Args& args);        // cli_pool.cc
int PsSubcommand(const Args& args);          // cli_processes.cc
int LogsSubcommand(const Args& args);        // cli_processes.cc
int WaitSubcommand(const Args& args);        // cli_processes.cc
int KillSubcommand(const Args& args);        // cli_processes.cc
int SendSubcommand(const Args& args);        // cli_processes.cc
int SnapshotSubcommand(const Args& args);    // cli_snapshot.cc
int RestoreSubcommand(const Args& args);     // cli_snapshot.cc
int ForkSubcommand(const Args& args);        // cli_snapshot.cc
int DiffSubcommand(const Args& args);        // cli_snapshot.cc
int LogSubcommand(const Args& args);         // cli_log.cc
int ReplaySubcommand(const Args& args);      // cli_replay.cc
int ManSubcommand(const Args& args);         // cli_docs.cc: hidden, `__man`, for the build
int CompletionSubcommand(const Args& args);  // cli_docs.cc: hidden, `__completion`
int OpenApiSubcommand(const Args& args);     // cli_docs.cc: hidden, `__openapi`

// Each subcommand's help: its --help, man page and completions (spec/command_help.h). run,
// create and exec have theirs in spec/ beside their parsers.
const CommandHelp& DoctorHelp();
const CommandHelp& VersionHelp();
const CommandHelp& LsHelp();
const CommandHelp& InspectHelp();
const CommandHelp& CpHelp();
const CommandHelp& RmHelp();
const CommandHelp& GcHelp();
const CommandHelp& McpHelp();
const CommandHelp& ServeHelp();
const CommandHelp& ImageHelp();
const CommandHelp& PoolHelp();
const CommandHelp& PsHelp();
const CommandHelp& LogsHelp();
const CommandHelp& WaitHelp();
const CommandHelp& KillHelp();
const CommandHelp& SendHelp();
const CommandHelp& SnapshotHelp();
const CommandHelp& RestoreHelp();
const CommandHelp& ForkHelp();
const CommandHelp& DiffHelp();
const CommandHelp& LogHelp();
const CommandHelp& ReplayHelp();

// Every subcommand's help, in `agentbox --help`'s order (main.cc's table).
std::span<const CommandHelp* const> AllCommandHelps();
// agentbox(1) itself.
const CommandHelp& ProgramHelp();

// Writes all of `text` to fd 1 / fd 2, retrying short writes; a closed stream is ignored.
void WriteStdout(std::string_view text);
void WriteStderr(std::string_view text);

// For the subcommands that parse by hand (image, pool): removes `flag` from args wherever it
// is; true when it was there.
bool TakeFlag(Args& args, std::string_view flag);

// Prints "agentbox: <message>" as one line on stderr (newlines in the message become spaces).
void PrintError(std::string_view message);

// PrintError(status.message()) and returns 125. When a server runs this process as its create
// helper (self_exec.h), the status code's name also goes to the fd it gave for it, so the
// server answers with the right HTTP status rather than guessing from the message.
int FailWith(const Status& status);
// Takes $AGENTBOX_STATUS_FD (set by a server for its create helper): close-on-exec, removed
// from the environment. Called first thing in main.
void AdoptStatusFd();

// True when args is exactly one of -h, --help.
bool IsHelpRequest(const Args& args);

// Parses `args` against `help`'s flags. On -h/--help prints FormatHelp(help) and sets *exit to 0;
// on a bad option prints the error and sets *exit to 125; else leaves *exit alone. Callers:
//   auto parsed = ParseOrHelp(LsHelp(), args, &exit); if (!parsed) return exit;
std::optional<ParsedArgs> ParseOrHelp(const CommandHelp& help, const Args& args, int* exit);
// Whether a flag (by long name) was given, and its last value.
bool HasFlag(const ParsedArgs& parsed, std::string_view name);
const std::string* FlagValue(const ParsedArgs& parsed, std::string_view name);

}  // namespace agentbox
