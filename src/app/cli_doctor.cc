// `agentbox doctor`: can this host give every isolation layer the native backend promises?
#include <algorithm>

#include "app/cli.h"
#include "native/doctor.h"

namespace agentbox {

int DoctorSubcommand(const Args& args) {
  if (IsHelpRequest(args)) {
    WriteStdout(
        "Usage: agentbox doctor\n\n"
        "Checks each isolation layer of the native backend on this host and says what is\n"
        "missing and how to get it. Exit status: 0 when every layer is available, 1 if not.\n");
    return 0;
  }
  if (!args.empty()) return FailWith(InvalidArgument("doctor: takes no arguments"));
  const std::vector<DoctorCheck> checks = RunDoctorChecks();
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
