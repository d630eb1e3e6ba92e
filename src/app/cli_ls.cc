// `agentbox ls [--json]` and `agentbox inspect ID|NAME`.
#include <nlohmann/json.hpp>

#include "app/cli.h"
#include "core/sandbox_manager.h"

namespace agentbox {
namespace {

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
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
  auto manager = SandboxManager::Open();
  if (!manager.ok()) return FailWith(manager.status());
  nlohmann::json list = nlohmann::json::array();
  std::string table = Pad("ID", 12) + Pad("NAME", 20) + Pad("BACKEND", 7) + Pad("STATE", 7) +
                      Pad("CREATED", 20) + "WORKSPACE\n";
  for (const SandboxStatus& s : manager->List()) {
    const SandboxRecord& r = s.record;
    list.push_back({{"id", r.id},
                    {"name", r.name},
                    {"backend", r.backend},
                    {"state", SandboxStateName(s.state)},
                    {"created_at", r.created_at},
                    {"workspace", r.workspace}});
    table += Pad(r.id, 12) + Pad(r.name.empty() ? "-" : r.name, 20) + Pad(r.backend, 7) +
             Pad(SandboxStateName(s.state), 7) + Pad(r.created_at, 20) + r.workspace + "\n";
  }
  WriteStdout(json ? list.dump() + "\n" : table);
  return 0;
}

int InspectSubcommand(const Args& args) {
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    WriteStdout(
        "Usage: agentbox inspect ID|NAME\n\nPrints the sandbox as JSON: id, name, "
        "backend, state, policy, workspace, created_at, usage.\n");
    return 0;
  }
  if (args.size() != 1) return FailWith(InvalidArgument("usage: agentbox inspect ID|NAME"));
  auto manager = SandboxManager::Open();
  if (!manager.ok()) return FailWith(manager.status());
  auto json = manager->InspectJson(args[0]);
  if (!json.ok()) return FailWith(json.status());
  WriteStdout(*json + "\n");
  return 0;
}

}  // namespace agentbox
