// `agentbox rm [-f] [--json] ID|NAME...` and `agentbox gc [--json]`.
#include <nlohmann/json.hpp>

#include "app/backends.h"
#include "app/cli.h"
#include "app/cli_image.h"
#include "core/sandbox_manager.h"

namespace agentbox {
namespace {

constexpr FlagDef kRmFlags[] = {
    {"force", 'f', "", "also when commands are running (they are killed)"},
    {"json", 0, "",
     "print a JSON array, one {\"ref\",\"id\",\"removed\"} per sandbox (and \"error\", \"code\" "
     "for one not removed)"},
    {"help", 'h', "", "show this help"},
};

constexpr FlagDef kGcFlags[] = {
    {"json", 0, "", "print {\"removed\": [{\"kind\", \"name\"}...]} instead of lines"},
    {"help", 'h', "", "show this help"},
};

// One sandbox's removal: the CLI's hint for a busy one (core's message names no front end).
nlohmann::json RemoveOne(SandboxManager& manager, const std::string& ref, bool force) {
  nlohmann::json out = {{"ref", ref}, {"id", nullptr}, {"removed", false}};
  auto found = manager.Find(ref);
  if (found.ok()) out["id"] = found->record.id;
  Status st = found.ok() ? manager.Remove(found->record.id, force) : found.status();
  if (st.code() == StatusCode::kFailedPrecondition) {
    st = FailedPrecondition(st.message() + "; use `agentbox rm -f` to kill them");
  }
  if (st.ok()) {
    out["removed"] = true;
  } else {
    out["error"] = st.message();
    out["code"] = StatusCodeName(st.code());
  }
  return out;
}

}  // namespace

const CommandHelp& RmHelp() {
  static const CommandHelp help = {
      .name = "rm",
      .summary = "remove sandboxes",
      .usage = "rm [-f] [--json] ID|NAME...",
      .description =
          "Kills everything in the sandboxes and removes them: processes, cgroup, "
          "state and a private workspace; a workspace you gave is kept. Prints each "
          "removed name or id. A sandbox running commands is refused without -f.",
      .flags = kRmFlags,
      .notes =
          "Exit status: 0 when every sandbox was removed, else 125 (one line on stderr for "
          "each that was not).",
      .operands = "sandbox",
  };
  return help;
}

const CommandHelp& GcHelp() {
  static const CommandHelp help = {
      .name = "gc",
      .summary = "remove what dead sandboxes and crashes left behind",
      .usage = "gc [--json]",
      .description =
          "Removes dead sandboxes and whatever a crash left behind: processes, "
          "cgroups, state, private workspaces, quota holds, and the workspace pool "
          "once it holds nothing. Prints one `removed KIND NAME` line each.",
      .flags = kGcFlags,
  };
  return help;
}

int RmSubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(RmHelp(), args, &exit);
  if (!parsed) return exit;
  if (parsed->rest.empty()) return FailWith(InvalidArgument("usage: agentbox rm [-f] ID|NAME..."));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  const bool json = HasFlag(*parsed, "json");
  nlohmann::json results = nlohmann::json::array();
  int status = 0;
  for (const std::string& ref : parsed->rest) {
    nlohmann::json one = RemoveOne(*manager, ref, HasFlag(*parsed, "force"));
    if (one["removed"]) {
      if (!json) WriteStdout(ref + "\n");
    } else {
      status = FailWith(Status(StatusCodeFromName(one["code"].get<std::string>()),
                               one["error"].get<std::string>()));
    }
    results.push_back(std::move(one));
  }
  if (json) WriteStdout(results.dump() + "\n");
  return status;
}

int GcSubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(GcHelp(), args, &exit);
  if (!parsed) return exit;
  if (!parsed->rest.empty()) return FailWith(InvalidArgument("gc takes no arguments"));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  std::vector<std::string> all;
  for (const std::string& line : manager->Gc().removed) all.push_back("removed " + line);
  for (std::string& line : CollectImageGarbage()) all.push_back(std::move(line));
  nlohmann::json removed = nlohmann::json::array();
  std::string lines;
  for (const std::string& line : all) {
    // "removed KIND NAME"; the image store's own lines say it the same way.
    const std::string what = line.starts_with("removed ") ? line.substr(8) : line;
    const size_t space = what.find(' ');
    removed.push_back({{"kind", what.substr(0, space)},
                       {"name", space == std::string::npos ? "" : what.substr(space + 1)}});
    lines += line + "\n";
  }
  WriteStdout(HasFlag(*parsed, "json") ? nlohmann::json{{"removed", removed}}.dump() + "\n"
                                       : lines);
  return 0;
}

}  // namespace agentbox
