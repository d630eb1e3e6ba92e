// Replay of a session log (`agentbox replay LOG [--from SNAP]`): the recorded operations run
// again, in order, in a fresh sandbox made from the recorded policy, and each record the replay
// writes is compared with the one recorded. What is compared: an exec's exit code, reason,
// stdout and stderr digests and whether it was rolled back; a file operation's error; and for
// every record the workspace digest before and after (a "before" that differs while the
// previous "after" agreed means something outside the log changed the workspace: a background
// process, a host-side edit). The policy hash and image digest are compared once, at the start.
//
// What cannot be replayed is skipped and said: a terminal exec (its keystrokes are not
// recorded), a file written with more than kMaxLoggedContent bytes (its content is not), a
// restore of a snapshot taken before the replay's starting point. An exec that read stdin is
// run with /dev/null (its input is not recorded) and noted.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/sandbox_manager.h"
#include "core/session_log.h"

namespace agentbox {

struct Divergence {
  std::string field;  // "exit_code", "stdout_digest", "workspace_after", ...
  nlohmann::json recorded, replayed;
};

struct ReplayStep {
  size_t line = 0;  // of the record in the log (0: the starting workspace)
  std::string op;
  std::string what;  // the command or path, for people
  std::vector<Divergence> divergences;
  std::string skipped;  // not replayed: why ("" when it was)
  std::string note;     // replayed, but not quite as recorded (stdin)
};

struct ReplayReport {
  std::string sandbox;  // the fresh sandbox the replay ran in
  bool kept = false;    // left running (--keep), else removed
  std::vector<ReplayStep> steps;
  size_t diverged = 0;  // steps with a divergence
  size_t skipped = 0;
  std::vector<std::string> notes;  // about the whole replay (a dropped workspace, a torn log)
};

struct ReplayOptions {
  std::optional<std::string> from;  // SNAP: start from this snapshot (its record in the log)
  bool keep = false;                // leave the replay's sandbox for inspection
};

// Pure: the divergences between a recorded record and the replay's record of the same op.
std::vector<Divergence> CompareRecords(const nlohmann::json& recorded,
                                       const nlohmann::json& replayed);

// Replays `log` with `manager` (whose session observer it sets for the while). Errors are for
// a log that cannot be replayed at all (no create record, a snapshot that is gone) or a sandbox
// that cannot be made; divergences are the report's.
StatusOr<ReplayReport> ReplaySession(SandboxManager& manager, const SessionLog& log,
                                     const ReplayOptions& options);

nlohmann::ordered_json ReplayReportJson(const ReplayReport& report);
std::string ReplayReportText(const ReplayReport& report);

}  // namespace agentbox
