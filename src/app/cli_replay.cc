// `agentbox replay [--from SNAP] [--keep] [--json] LOG`: a recorded session run again in a
// fresh sandbox (core/session_replay.h). Exit 0 when nothing diverged, 1 when something did,
// 125 when the log cannot be replayed.
#include "app/backends.h"
#include "app/cli.h"
#include "core/session_replay.h"
#include "spec/cli_flags.h"
#include "spec/command_help.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

constexpr FlagDef kReplayFlags[] = {
    {"from", 0, "SNAP",
     "start from this snapshot (one the session took, or the one it was forked from) instead of "
     "the session's beginning"},
    {"keep", 0, "", "leave the replay's sandbox running, to look into it (its id is printed)"},
    {"json", 0, "", "print the report as one JSON object"},
    {"help", 'h', "", "show this help"},
};
// A session log is read whole; this bounds what a mistaken path costs.
constexpr size_t kMaxLogBytes = 256u << 20;
constexpr int kExitDiverged = 1;

}  // namespace

const CommandHelp& ReplayHelp() {
  static const CommandHelp help = {
      .name = "replay",
      .summary = "re-run a session log in a fresh sandbox, report divergences",
      .usage = "replay [--from SNAP] [--keep] [--json] LOG",
      .description =
          "Runs the session recorded in LOG (`agentbox log --json ID > LOG`) again, in a fresh "
          "sandbox of the recorded policy, and reports every divergence: exit codes, output "
          "digests, workspace digests.",
      .flags = kReplayFlags,
      .notes =
          "Exit status: 0 when nothing diverged, 1 when something did, 125 when the log "
          "cannot be replayed.",
      .operands = "path",
  };
  return help;
}

int ReplaySubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(ReplayHelp(), args, &exit);
  if (!parsed) return exit;
  ReplayOptions options;
  if (const std::string* from = FlagValue(*parsed, "from")) options.from = *from;
  options.keep = HasFlag(*parsed, "keep");
  const bool json = HasFlag(*parsed, "json");
  if (parsed->rest.size() != 1) {
    return FailWith(InvalidArgument("usage: agentbox replay [--from SNAP] [--keep] LOG"));
  }
  auto text = ReadFileAtMost(parsed->rest[0], kMaxLogBytes);
  if (!text.ok()) return FailWith(text.status());
  auto log = ParseSessionLog(*text);
  if (!log.ok()) return FailWith(log.status().WithContext(parsed->rest[0]));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto report = ReplaySession(*manager, *log, options);
  if (!report.ok()) return FailWith(report.status());
  WriteStdout(json ? ReplayReportJson(*report).dump() + "\n" : ReplayReportText(*report));
  return report->diverged == 0 ? 0 : kExitDiverged;
}

}  // namespace agentbox
