// The `agentbox` command line: one function per subcommand, dispatched from one table in main.cc.
//
// Each subcommand gets the arguments after its name and returns the process exit status. Errors
// are reported exactly once, here at the front end: one "agentbox: ..." line on stderr, exit 125.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox {

inline constexpr const char* kAgentboxVersion = "0.1.0";
inline constexpr int kExitAgentboxFailed = 125;  // CONTRACT §1: agentbox itself failed

using Args = std::vector<std::string>;

int RunSubcommand(const Args& args);      // cli_run.cc
int DoctorSubcommand(const Args& args);   // cli_doctor.cc
int VersionSubcommand(const Args& args);  // cli_version.cc
int CreateSubcommand(const Args& args);   // cli_create.cc
int ExecSubcommand(const Args& args);     // cli_exec.cc
int LsSubcommand(const Args& args);       // cli_ls.cc
int InspectSubcommand(const Args& args);  // cli_ls.cc
int CpSubcommand(const Args& args);       // cli_cp.cc
int RmSubcommand(const Args& args);       // cli_rm.cc
int GcSubcommand(const Args& args);       // cli_rm.cc
int McpSubcommand(const Args& args);      // cli_mcp.cc
int ServeSubcommand(const Args& args);    // cli_serve.cc
int ImageSubcommand(const Args& args);    // cli_image.cc
int PoolSubcommand(const Args& args);     // cli_pool.cc
int PsSubcommand(const Args& args);       // cli_processes.cc
int LogsSubcommand(const Args& args);     // cli_processes.cc
int WaitSubcommand(const Args& args);     // cli_processes.cc
int KillSubcommand(const Args& args);     // cli_processes.cc
int SendSubcommand(const Args& args);     // cli_processes.cc
int SnapshotSubcommand(const Args& args);  // cli_snapshot.cc
int RestoreSubcommand(const Args& args);   // cli_snapshot.cc
int ForkSubcommand(const Args& args);      // cli_snapshot.cc
int DiffSubcommand(const Args& args);      // cli_snapshot.cc
int LogSubcommand(const Args& args);       // cli_log.cc
int ReplaySubcommand(const Args& args);    // cli_replay.cc

// Writes all of `text` to fd 1 / fd 2, retrying short writes; a closed stream is ignored.
void WriteStdout(std::string_view text);
void WriteStderr(std::string_view text);

// Prints "agentbox: <message>" as one line on stderr (newlines in the message become spaces).
void PrintError(std::string_view message);

// PrintError(status.message()) and returns 125. When a server runs this process as its create
// helper (self_exec.h), the status code's name also goes to the fd it gave for it, so the
// server answers with the right HTTP status rather than guessing from the message.
int FailWith(const Status& status);
// Takes $AGENTBOX_STATUS_FD (set by a server for its create helper): close-on-exec, removed
// from the environment. Called first thing in main.
void AdoptStatusFd();

// True when args is exactly one of -h, --help: the only flags version and doctor accept.
bool IsHelpRequest(const Args& args);

}  // namespace agentbox
