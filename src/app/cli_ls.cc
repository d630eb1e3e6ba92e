// `agentbox ls [--json|-q|--format F]` and `agentbox inspect [--verify|--format F] ID|NAME...`.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "app/backends.h"
#include "app/cli.h"
#include "core/sandbox_manager.h"
#include "spec/output_format.h"

namespace agentbox {
namespace {

constexpr FlagDef kLsFlags[] = {
    {"json", 0, "", "print a JSON array of the sandboxes"},
    {"quiet", 'q', "", "print only the ids, one per line"},
    {"format", 0, "FORMAT",
     "print each sandbox with a Go-template-like FORMAT: {{.ID}}, {{.Name}}, {{.Backend}}, "
     "{{.State}}, {{.CreatedAt}}, {{.Workspace}}, {{json .}}; \\t and \\n as typed"},
    {"help", 'h', "", "show this help"},
};

constexpr FlagDef kInspectFlags[] = {
    {"verify", 0, "",
     "run a probe inside the sandbox and report the isolation actually in force (namespaces, uid "
     "map, capabilities, no_new_privs, seccomp, mounts, network, cgroup limits) as "
     "{\"id\",\"ok\",\"checks\":[...]}; exit 1 and one stderr line per check that differs from "
     "the policy"},
    {"format", 'f', "FORMAT",
     "print each sandbox with a Go-template-like FORMAT (as `ls --format`)"},
    {"help", 'h', "", "show this help"},
};

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
}

// Newest first, as `docker ps`; a name, then the id, orders sandboxes made in the same second.
std::vector<SandboxStatus> Sorted(std::vector<SandboxStatus> list) {
  std::sort(list.begin(), list.end(), [](const SandboxStatus& a, const SandboxStatus& b) {
    const SandboxRecord &x = a.record, &y = b.record;
    if (x.created_at != y.created_at) return x.created_at > y.created_at;
    return x.name != y.name ? x.name < y.name : x.id < y.id;
  });
  return list;
}

nlohmann::json SummaryJson(const SandboxStatus& s) {
  const SandboxRecord& r = s.record;
  return {{"id", r.id},
          {"name", r.name},
          {"backend", BackendName(r.backend)},
          {"state", SandboxStateName(s.state)},
          {"created_at", r.created_at},
          {"workspace", r.workspace}};
}

std::string Table(const std::vector<SandboxStatus>& list) {
  std::string table = Pad("ID", 12) + Pad("NAME", 20) + Pad("BACKEND", 10) + Pad("STATE", 7) +
                      Pad("CREATED", 20) + "WORKSPACE\n";
  for (const SandboxStatus& s : list) {
    const SandboxRecord& r = s.record;
    table += Pad(r.id, 12) + Pad(r.name.empty() ? "-" : r.name, 20) +
             Pad(BackendName(r.backend), 10) + Pad(SandboxStateName(s.state), 7) +
             Pad(r.created_at, 20) + (r.workspace.empty() ? "-" : r.workspace) + "\n";
  }
  return table;
}

// One rendering per object, each ended by a newline (as docker's --format).
StatusOr<std::string> Formatted(const std::string& format, const nlohmann::json& objects) {
  std::string out;
  for (const nlohmann::json& object : objects) {
    AB_ASSIGN_OR_RETURN(std::string line, RenderFormat(format, object));
    out += line + "\n";
  }
  return out;
}

// inspect --verify: the report on stdout; 1 and a line per failed check when one fails.
int PrintVerifyReport(SandboxManager& manager, const std::string& ref) {
  auto report = manager.Verify(ref);
  if (!report.ok()) return FailWith(report.status());
  WriteStdout(VerifyReportJson(*report) + "\n");
  for (const std::string& line : VerifyFailureLines(*report)) PrintError(line);
  return report->ok() ? 0 : 1;
}

}  // namespace

const CommandHelp& LsHelp() {
  static const CommandHelp help = {
      .name = "ls",
      .summary = "list sandboxes",
      .usage = "ls [--json | -q | --format FORMAT]",
      .description =
          "Lists the persistent sandboxes of the state directory, newest first: id, "
          "name (- if none), backend, state (running or dead), creation time (UTC), "
          "workspace.\n"
          "\n"
          "  agentbox ls --format '{{.ID}}\\t{{.Name}}\\t{{.State}}'\n"
          "  agentbox rm $(agentbox ls -q)",
      .flags = kLsFlags,
  };
  return help;
}

const CommandHelp& InspectHelp() {
  static const CommandHelp help = {
      .name = "inspect",
      .summary = "show sandboxes as JSON",
      .usage = "inspect [--verify | --format FORMAT] ID|NAME...",
      .description =
          "Prints the sandbox as JSON: id, name, backend, state, policy, workspace, "
          "created_at, usage. Several sandboxes print as one JSON array, in the order "
          "given; one that is not found is an error line, the others still printed "
          "(exit 125).",
      .flags = kInspectFlags,
      .operands = "sandbox",
  };
  return help;
}

int LsSubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(LsHelp(), args, &exit);
  if (!parsed) return exit;
  if (!parsed->rest.empty()) return FailWith(InvalidArgument("ls: takes no arguments"));
  const std::string* format = FlagValue(*parsed, "format");
  const bool json = HasFlag(*parsed, "json"), quiet = HasFlag(*parsed, "quiet");
  if (int(json) + int(quiet) + int(format != nullptr) > 1) {
    return FailWith(InvalidArgument("ls: give one of --json, -q and --format"));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  const std::vector<SandboxStatus> list = Sorted(manager->List());
  nlohmann::json objects = nlohmann::json::array();
  for (const SandboxStatus& s : list) objects.push_back(SummaryJson(s));
  if (quiet) format = nullptr;
  StatusOr<std::string> out = json     ? objects.dump() + "\n"
                              : quiet  ? Formatted("{{.ID}}", objects)
                              : format ? Formatted(*format, objects)
                                       : Table(list);
  if (!out.ok()) return FailWith(out.status());
  WriteStdout(*out);
  return 0;
}

int InspectSubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(InspectHelp(), args, &exit);
  if (!parsed) return exit;
  const std::vector<std::string>& refs = parsed->rest;
  const bool verify = HasFlag(*parsed, "verify");
  if (refs.empty() || (verify && refs.size() != 1)) {
    return FailWith(InvalidArgument("usage: agentbox inspect [--verify] ID|NAME..."));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  if (verify) return PrintVerifyReport(*manager, refs[0]);
  nlohmann::json found = nlohmann::json::array();
  int status = 0;
  for (const std::string& ref : refs) {
    auto text = manager->InspectJson(ref);
    if (!text.ok()) {
      status = FailWith(text.status());
      continue;
    }
    found.push_back(nlohmann::json::parse(*text));
  }
  if (const std::string* format = FlagValue(*parsed, "format")) {
    auto out = Formatted(*format, found);
    if (!out.ok()) return FailWith(out.status());
    WriteStdout(*out);
  } else if (refs.size() == 1) {
    if (!found.empty()) WriteStdout(found[0].dump(2) + "\n");
  } else {
    WriteStdout(found.dump(2) + "\n");
  }
  return status;
}

}  // namespace agentbox
