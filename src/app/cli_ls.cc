// `agentbox ls [--json]` and `agentbox inspect [--verify] ID|NAME`.
#include <nlohmann/json.hpp>

#include "app/backends.h"
#include "app/cli.h"
#include "core/sandbox_manager.h"

namespace agentbox {
namespace {

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
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

int LsSubcommand(const Args& args) {
  bool json = false;
  for (const std::string& a : args) {
    if (a == "--json") {
      json = true;
    } else if (a == "-h" || a == "--help") {
      WriteStdout("Usage: agentbox ls [--json]\n\nLists persistent sandboxes.\n");
      return 0;
    } else {
      return FailWith(InvalidArgument("ls: unknown option \"" + a + "\""));
    }
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  nlohmann::json list = nlohmann::json::array();
  std::string table = Pad("ID", 12) + Pad("NAME", 20) + Pad("BACKEND", 7) + Pad("STATE", 7) +
                      Pad("CREATED", 20) + "WORKSPACE\n";
  for (const SandboxStatus& s : manager->List()) {
    const SandboxRecord& r = s.record;
    list.push_back({{"id", r.id},
                    {"name", r.name},
                    {"backend", BackendName(r.backend)},
                    {"state", SandboxStateName(s.state)},
                    {"created_at", r.created_at},
                    {"workspace", r.workspace}});
    table += Pad(r.id, 12) + Pad(r.name.empty() ? "-" : r.name, 20) +
             Pad(BackendName(r.backend), 7) + Pad(SandboxStateName(s.state), 7) +
             Pad(r.created_at, 20) + r.workspace + "\n";
  }
  WriteStdout(json ? list.dump() + "\n" : table);
  return 0;
}

int InspectSubcommand(const Args& args) {
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    WriteStdout(
        "Usage: agentbox inspect [--verify] ID|NAME\n\nPrints the sandbox as JSON: id, name, "
        "backend, state, policy, workspace, created_at, usage.\n\n"
        "  --verify  run a probe inside the sandbox and report the isolation actually in\n"
        "            force (namespaces, uid map, capabilities, no_new_privs, seccomp, mounts,\n"
        "            network, cgroup limits) as {\"id\",\"ok\",\"checks\":[...]}; exit 1 and\n"
        "            one stderr line per check when anything differs from the policy\n");
    return 0;
  }
  const bool verify = !args.empty() && args[0] == "--verify";
  if (args.size() != (verify ? 2u : 1u)) {
    return FailWith(InvalidArgument("usage: agentbox inspect [--verify] ID|NAME"));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  if (verify) return PrintVerifyReport(*manager, args[1]);
  auto json = manager->InspectJson(args[0]);
  if (!json.ok()) return FailWith(json.status());
  WriteStdout(*json + "\n");
  return 0;
}

}  // namespace agentbox
