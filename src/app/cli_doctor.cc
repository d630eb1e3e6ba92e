// `agentbox doctor`: can this host give every isolation layer the native backend promises?
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/cli.h"
#include "core/state_store.h"
#include "docker/engine_client.h"
#include "docker/host_ids.h"
#include "native/doctor.h"

namespace agentbox {
namespace {

// Only when a Docker daemon answers: who its containers' processes are on the host.
std::optional<DoctorCheck> DockerPostureCheck() {
  auto client = docker::EngineClient::FromEnvironment();
  if (!client.ok()) return std::nullopt;
  auto ping = client->Call("GET", "/_ping");
  if (!ping.ok() || ping->status != 200) return std::nullopt;  // no daemon: nothing to say
  auto ids = docker::AskContainerIds(*client);
  if (!ids.ok()) return DoctorCheck{"docker uids", false, ids.status().message()};
  std::string detail =
      "containers run as host uid " + std::to_string(ids->host_uid) + ", no account's";
  detail += ids->userns_remap ? " (the daemon's userns-remap range)"
                              : " (mapped to 1000 inside by the agent's user namespace)";
  return DoctorCheck{"docker uids", true, detail};
}

}  // namespace

const CommandHelp& DoctorHelp() {
  static constexpr FlagDef kFlags[] = {
      {"json", 0, "", "print {\"ok\", \"checks\": [{\"layer\", \"ok\", \"detail\"}...]}"},
      {"help", 'h', "", "show this help"},
  };
  static const CommandHelp help = {
      .name = "doctor",
      .summary = "check that this host can give every isolation layer",
      .usage = "doctor [--json]",
      .description =
          "Checks each isolation layer of the native backend on this host (user, "
          "mount, pid, ipc, uts, net and cgroup namespaces, /proc, the new mount API, "
          "idmapped mounts, seccomp, no_new_privs, pidfd_open, close_range, clone3, "
          "cgroups with memory, pids and cpu control, the disk limit) and says what is "
          "missing and how to get it; when a Docker daemon answers, also who its "
          "containers run as.",
      .flags = kFlags,
      .notes = "Exit status: 0 when every layer is available, 1 if not.",
  };
  return help;
}

int DoctorSubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(DoctorHelp(), args, &exit);
  if (!parsed) return exit;
  if (!parsed->rest.empty()) return FailWith(InvalidArgument("doctor: takes no arguments"));
  std::vector<DoctorCheck> checks = RunDoctorChecks(StateRootPath());
  if (auto docker = DockerPostureCheck()) checks.push_back(*docker);
  size_t width = 0;
  for (const DoctorCheck& check : checks) width = std::max(width, check.layer.size());
  bool all_ok = true;
  std::string out;
  nlohmann::json list = nlohmann::json::array();
  for (const DoctorCheck& check : checks) {
    all_ok = all_ok && check.ok;
    std::string line = check.ok ? "ok       " : "MISSING  ";
    line += check.layer + std::string(width - check.layer.size() + 3, ' ') + check.detail;
    out += line + "\n";
    list.push_back({{"layer", check.layer}, {"ok", check.ok}, {"detail", check.detail}});
  }
  if (HasFlag(*parsed, "json")) {
    out = nlohmann::json{{"ok", all_ok}, {"checks", list}}.dump(
              -1, ' ', false, nlohmann::json::error_handler_t::replace) +
          "\n";
  }
  WriteStdout(out);
  return all_ok ? 0 : 1;
}

}  // namespace agentbox
