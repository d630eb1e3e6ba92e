// `agentbox log [--json] ID|NAME`: a sandbox's session log (core/session_log.h), one line per
// record; --json prints the records themselves (JSON lines, what `replay` reads).
#include <nlohmann/json.hpp>

#include "app/backends.h"
#include "app/cli.h"
#include "core/sandbox_manager.h"
#include "core/session_log.h"
#include "spec/cli_flags.h"
#include "spec/command_help.h"

namespace agentbox {
namespace {

constexpr FlagDef kLogFlags[] = {
    {"json", 0, "", "print the records themselves, JSON lines (what `agentbox replay` reads)"},
    {"help", 'h', "", "show this help"},
};

// "sha256:0123456789ab" -> "0123456789ab"; null -> "?".
std::string Short(const nlohmann::json& digest) {
  if (!digest.is_string()) return "?";
  const std::string d = digest.get<std::string>();
  return d.size() > 19 ? d.substr(7, 12) : d;
}

std::string Quoted(const nlohmann::json& argv) {
  std::string out;
  for (const auto& a : argv) {
    const std::string s = a.is_string() ? a.get<std::string>() : a.dump();
    const bool plain = !s.empty() && s.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    out += (out.empty() ? "" : " ") + (plain ? s : "'" + s + "'");
  }
  return out;
}

// What a record did, in a few words.
std::string What(const nlohmann::json& r) {
  const std::string op = r.value("op", "");
  if (op == "exec") {
    std::string how = r.contains("exit_code") ? "exit " + r["exit_code"].dump() : "started";
    if (r.value("rolled_back", false)) how += ", rolled back";
    return "[" + how + "] " + Quoted(r.value("argv", nlohmann::json::array()));
  }
  if (op == "snapshot" || op == "restore") {
    const auto& s = r.value("snapshot", nlohmann::json::object());
    return s.value("id", "") +
           (s.value("name", "").empty() ? "" : " (" + s.value("name", "") + ")");
  }
  if (op == "create")
    return r.contains("from_snapshot") ? "fork of " + r["from_snapshot"].value("id", "") : "";
  std::string what = r.value("path", "");
  if (r.contains("error")) what += " [error: " + r["error"].get<std::string>() + "]";
  return what;
}

std::string Line(const nlohmann::json& r) {
  std::string ws = Short(r.value("workspace_after", nlohmann::json()));
  if (r.contains("workspace_before")) ws = Short(r["workspace_before"]) + "->" + ws;
  std::string op = r.value("op", "");
  op.resize(std::max<size_t>(op.size(), 11), ' ');
  return r.value("time", "") + "  " + op + " " + What(r) + "  (workspace " + ws + ")\n";
}

}  // namespace

const CommandHelp& LogHelp() {
  static const CommandHelp help = {
      .name = "log",
      .summary = "print a sandbox's session log",
      .usage = "log [--json] ID|NAME",
      .description =
          "Prints the sandbox's session log: every exec, file operation, snapshot and restore, "
          "with the workspace digest before and after. The log itself is "
          "<state>/sandboxes/ID/session.log, JSON lines (docs/api.md says what a record holds).",
      .flags = kLogFlags,
      .operands = "sandbox",
  };
  return help;
}

int LogSubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(LogHelp(), args, &exit);
  if (!parsed) return exit;
  const bool json = HasFlag(*parsed, "json");
  if (parsed->rest.size() != 1) {
    return FailWith(InvalidArgument("usage: agentbox log [--json] ID|NAME"));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto found = manager->Find(parsed->rest[0]);
  if (!found.ok()) return FailWith(found.status());
  auto text = manager->SessionLogText(found->record);
  if (!text.ok()) return FailWith(text.status());
  if (json) {
    WriteStdout(*text);
    return 0;
  }
  auto log = ParseSessionLog(*text);
  if (!log.ok()) return FailWith(log.status());
  for (const nlohmann::json& r : log->records) WriteStdout(Line(r));
  if (log->torn_tail) PrintError("note: the log's last line is incomplete (a write cut short)");
  return 0;
}

}  // namespace agentbox
