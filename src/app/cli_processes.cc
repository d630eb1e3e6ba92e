// The background processes of a sandbox (`agentbox exec -d`): `ps`, `logs`, `wait`, `kill` and
// `send`.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>

#include "app/backends.h"
#include "app/cli.h"
#include "app/cli_sandbox_result.h"
#include "base/utf8.h"
#include "core/sandbox_manager.h"
#include "proto/process_wire.h"
#include "spec/cli_flags.h"
#include "spec/command_help.h"
#include "spec/units.h"

namespace agentbox {
namespace {

constexpr int kExitStillRunning = 124;  // `wait --timeout` ended first, as timeout(1) says it

struct Invocation {
  ParsedArgs parsed;
  bool help = false;
  bool json = false;
};

// Parses flags; `want` positional arguments (the sandbox, then the process when 2).
StatusOr<Invocation> Parse(const CommandHelp& help, const Args& args, size_t want) {
  AB_ASSIGN_OR_RETURN(ParsedArgs parsed, ParseFlags(help.flags, args));
  Invocation inv;
  for (const ParsedFlag& flag : parsed.flags) {
    if (flag.def->long_name == "help") inv.help = true;
    if (flag.def->long_name == "json") inv.json = true;
  }
  if (!inv.help && parsed.rest.size() != want) {
    return InvalidArgument("usage: agentbox " + std::string(help.usage));
  }
  inv.parsed = std::move(parsed);
  return inv;
}

const std::string* FlagValue(const Invocation& inv, std::string_view name) {
  const std::string* value = nullptr;
  for (const ParsedFlag& flag : inv.parsed.flags) {
    if (flag.def->long_name == name) value = &flag.value;
  }
  return value;
}

bool HasFlag(const Invocation& inv, std::string_view name) {
  return FlagValue(inv, name) != nullptr;
}

StatusOr<SandboxRecord> FindSandbox(SandboxManager& manager, const std::string& ref) {
  AB_ASSIGN_OR_RETURN(SandboxStatus status, manager.Find(ref));
  return status.record;
}

// "exited 0", "killed by TERM", "timeout", "error: ...": a process's end in a few words.
std::string Ending(const ProcessInfo& info) {
  if (!info.result) return "running";
  const ExecResult& r = *info.result;
  switch (r.reason) {
    case ExitReason::kExited:
      return "exited " + std::to_string(r.exit_code);
    case ExitReason::kSignaled:
      return "killed by " + SignalName(r.signal.value_or(0));
    case ExitReason::kTimeout:
      return "timeout";
    case ExitReason::kOom:
      return "out of memory";
    case ExitReason::kError:
      return "error: " + r.error;
  }
  return "exited";
}

std::string Started(double unix_seconds) {
  time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm = {};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string CommandLine(const ProcessInfo& info) {
  std::string line;
  for (const std::string& a : info.argv) line += (line.empty() ? "" : " ") + SanitizeUtf8(a);
  return line;
}

constexpr FlagDef kPsFlags[] = {
    {"json", 0, "", "print a JSON array of the processes"},
    {"help", 'h', "", "show this help"},
};

constexpr FlagDef kLogsFlags[] = {
    {"follow", 'f', "", "go on printing its output until it exits"},
    {"since", 0, "OFFSET", "only output from this byte offset on (a previous --json's \"next\")"},
    {"json", 0, "", "print the offsets and the process as JSON on stderr at the end"},
    {"help", 'h', "", "show this help"},
};

constexpr FlagDef kWaitFlags[] = {
    {"timeout", 0, "SECONDS", "give up after this long: exit 124, the process still running"},
    {"json", 0, "", "print the process as JSON"},
    {"help", 'h', "", "show this help"},
};

constexpr FlagDef kKillFlags[] = {
    {"signal", 's', "SIG", "the signal, by name or number; KILL ends its whole tree", "TERM"},
    {"json", 0, "", "print the process as JSON"},
    {"help", 'h', "", "show this help"},
};

constexpr FlagDef kSendFlags[] = {
    {"close", 0, "", "close its stdin after the data (it then reads EOF)"},
    {"json", 0, "", "print the process as JSON"},
    {"help", 'h', "", "show this help"},
};

}  // namespace

const CommandHelp& PsHelp() {
  static const CommandHelp help = {
      .name = "ps",
      .summary = "list a sandbox's background processes (exec -d)",
      .usage = "ps [--json] ID|NAME",
      .description =
          "Lists the sandbox's background processes (`agentbox exec -d`), oldest first: "
          "running and exited ones, 32 at most.",
      .flags = kPsFlags,
      .operands = "sandbox",
  };
  return help;
}

const CommandHelp& LogsHelp() {
  static const CommandHelp help = {
      .name = "logs",
      .summary = "print a background process's output",
      .usage = "logs [-f] [--since OFFSET] ID|NAME PROC",
      .description =
          "Prints a background process's output: what its ring still holds (the last "
          "output_limit bytes), stdout to stdout and stderr to stderr.",
      .flags = kLogsFlags,
      .operands = "sandbox proc",
  };
  return help;
}

const CommandHelp& WaitHelp() {
  static const CommandHelp help = {
      .name = "wait",
      .summary = "wait for a background process to exit",
      .usage = "wait [--timeout SECONDS] ID|NAME PROC",
      .description =
          "Waits until a background process exits; prints its exit code and exits "
          "with it (124 when --timeout ends first; the process then runs on).",
      .flags = kWaitFlags,
      .operands = "sandbox proc",
  };
  return help;
}

const CommandHelp& KillHelp() {
  static const CommandHelp help = {
      .name = "kill",
      .summary = "signal a background process",
      .usage = "kill [-s SIG] ID|NAME PROC",
      .description =
          "Sends a signal to a background process's process group (as Ctrl-C at a "
          "terminal reaches a job); KILL ends its whole process tree.",
      .flags = kKillFlags,
      .operands = "sandbox proc",
  };
  return help;
}

const CommandHelp& SendHelp() {
  static const CommandHelp help = {
      .name = "send",
      .summary = "write to a background process's stdin",
      .usage = "send [--close] ID|NAME PROC",
      .description =
          "Writes agentbox's stdin to the stdin of a background process started with "
          "`agentbox exec -d -i` (up to 1 MiB may wait for it to read).",
      .flags = kSendFlags,
      .operands = "sandbox proc",
  };
  return help;
}

namespace {

// Every subcommand here starts the same way: flags, the manager, the sandbox.
struct Context {
  Invocation inv;
  std::optional<SandboxManager> manager;
  SandboxRecord record;
};

StatusOr<Context> Open(const CommandHelp& help, const Args& args, size_t want) {
  Context ctx;
  AB_ASSIGN_OR_RETURN(ctx.inv, Parse(help, args, want));
  if (ctx.inv.help) return ctx;
  AB_ASSIGN_OR_RETURN(SandboxManager manager, OpenSandboxManager());
  ctx.manager.emplace(std::move(manager));
  AB_ASSIGN_OR_RETURN(ctx.record, FindSandbox(*ctx.manager, ctx.inv.parsed.rest[0]));
  if (want == 2) AB_RETURN_IF_ERROR(CheckProcessId(ctx.inv.parsed.rest[1]));
  return ctx;
}

int PrintInfo(const ProcessInfo& info, bool json, const std::string& plain) {
  WriteStdout(json ? ProcessInfoToJson(info) + "\n" : plain);
  return 0;
}

}  // namespace

int PsSubcommand(const Args& args) {
  auto ctx = Open(PsHelp(), args, 1);
  if (!ctx.ok()) return FailWith(ctx.status());
  if (ctx->inv.help) {
    WriteStdout(FormatHelp(PsHelp()));
    return 0;
  }
  auto processes = ctx->manager->ListProcesses(ctx->record);
  if (!processes.ok()) return FailWith(processes.status());
  if (ctx->inv.json) {
    std::string out = "[";
    for (const ProcessInfo& p : *processes)
      out += (out.size() > 1 ? "," : "") + ProcessInfoToJson(p);
    WriteStdout(out + "]\n");
    return 0;
  }
  std::string out = "PROC  STATE                 STARTED               COMMAND\n";
  for (const ProcessInfo& p : *processes) {
    char line[128];
    std::snprintf(line, sizeof(line), "%-5s %-21s %-21s ", p.id.c_str(),
                  Ending(p).substr(0, 21).c_str(), Started(p.started_at).c_str());
    out += line + CommandLine(p) + "\n";
  }
  WriteStdout(out);
  return 0;
}

int LogsSubcommand(const Args& args) {
  auto ctx = Open(LogsHelp(), args, 2);
  if (!ctx.ok()) return FailWith(ctx.status());
  if (ctx->inv.help) {
    WriteStdout(FormatHelp(LogsHelp()));
    return 0;
  }
  uint64_t since = 0;
  if (const std::string* value = FlagValue(ctx->inv, "since")) {
    auto number = ParseSize(*value);
    if (!number.ok()) return FailWith(number.status().WithContext("--since"));
    since = *number;
  }
  ::signal(SIGPIPE, SIG_IGN);
  OutputCapture output(UINT64_MAX, /*forward_fds=*/true);
  auto logs = ctx->manager->ProcessOutput(ctx->record, ctx->inv.parsed.rest[1],
                                          HasFlag(ctx->inv, "follow"), since, output);
  if (!logs.ok()) return FailWith(logs.status());
  if (ctx->inv.json) {
    WriteStderr("{\"from\":" + std::to_string(logs->from) +
                ",\"next\":" + std::to_string(logs->next) +
                ",\"process\":" + ProcessInfoToJson(logs->process) + "}\n");
  }
  return 0;
}

int WaitSubcommand(const Args& args) {
  auto ctx = Open(WaitHelp(), args, 2);
  if (!ctx.ok()) return FailWith(ctx.status());
  if (ctx->inv.help) {
    WriteStdout(FormatHelp(WaitHelp()));
    return 0;
  }
  double timeout = 0;
  if (const std::string* value = FlagValue(ctx->inv, "timeout")) {
    auto seconds = ParseTimeout(*value);
    if (!seconds.ok()) return FailWith(seconds.status().WithContext("--timeout"));
    timeout = *seconds;
  }
  auto info = ctx->manager->WaitProcess(ctx->record, ctx->inv.parsed.rest[1], timeout);
  if (!info.ok()) return FailWith(info.status());
  if (!info->result) {
    if (ctx->inv.json) WriteStdout(ProcessInfoToJson(*info) + "\n");
    PrintError("wait: process " + info->id + " is still running after " + FormatSeconds(timeout) +
               "s");
    return kExitStillRunning;
  }
  int code = info->result->exit_code;
  PrintInfo(*info, ctx->inv.json, std::to_string(code) + "\n");
  if (info->result->reason == ExitReason::kError) PrintError(info->result->error);
  return code;
}

int KillSubcommand(const Args& args) {
  auto ctx = Open(KillHelp(), args, 2);
  if (!ctx.ok()) return FailWith(ctx.status());
  if (ctx->inv.help) {
    WriteStdout(FormatHelp(KillHelp()));
    return 0;
  }
  int signal = SIGTERM;
  if (const std::string* value = FlagValue(ctx->inv, "signal")) {
    auto parsed = ParseSignal(*value);
    if (!parsed.ok()) return FailWith(parsed.status().WithContext("--signal"));
    signal = *parsed;
  }
  auto info = ctx->manager->SignalProcess(ctx->record, ctx->inv.parsed.rest[1], signal);
  if (!info.ok()) return FailWith(info.status());
  return PrintInfo(*info, ctx->inv.json, info->id + "\n");
}

int SendSubcommand(const Args& args) {
  auto ctx = Open(SendHelp(), args, 2);
  if (!ctx.ok()) return FailWith(ctx.status());
  if (ctx->inv.help) {
    WriteStdout(FormatHelp(SendHelp()));
    return 0;
  }
  const std::string& id = ctx->inv.parsed.rest[1];
  bool close = HasFlag(ctx->inv, "close");
  std::string chunk;
  std::optional<ProcessInfo> last;
  // In pieces, so a long stream never needs more than one piece in memory: each waits in the
  // sandbox until the process reads it.
  for (bool eof = false; !eof;) {
    chunk.resize(64 * 1024);
    ssize_t n = ::read(0, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailWith(ErrnoStatus("send: read stdin"));
    eof = n == 0;
    chunk.resize(static_cast<size_t>(n));
    if (!eof || close || !last) {
      auto info = ctx->manager->WriteProcessStdin(ctx->record, id, chunk, eof && close);
      if (!info.ok()) return FailWith(info.status());
      last = *info;
    }
  }
  return PrintInfo(*last, ctx->inv.json, "");
}

}  // namespace agentbox
