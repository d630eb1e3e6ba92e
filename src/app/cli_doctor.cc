// `agentbox doctor`: can this host give every isolation layer the native backend promises?
#include <algorithm>
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

int DoctorSubcommand(const Args& args) {
  if (IsHelpRequest(args)) {
    WriteStdout(
        "Usage: agentbox doctor\n\n"
        "Checks each isolation layer of the native backend on this host and says what is\n"
        "missing and how to get it. Exit status: 0 when every layer is available, 1 if not.\n");
    return 0;
  }
  if (!args.empty()) return FailWith(InvalidArgument("doctor: takes no arguments"));
  std::vector<DoctorCheck> checks = RunDoctorChecks(StateRootPath());
  if (auto docker = DockerPostureCheck()) checks.push_back(*docker);
  size_t width = 0;
  for (const DoctorCheck& check : checks) width = std::max(width, check.layer.size());
  bool all_ok = true;
  std::string out;
  for (const DoctorCheck& check : checks) {
    all_ok = all_ok && check.ok;
    std::string line = check.ok ? "ok       " : "MISSING  ";
    line += check.layer + std::string(width - check.layer.size() + 3, ' ') + check.detail;
    out += line + "\n";
  }
  WriteStdout(out);
  return all_ok ? 0 : 1;
}

}  // namespace agentbox
