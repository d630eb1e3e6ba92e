// `agentbox rm [-f] ID|NAME...` and `agentbox gc`.
#include "app/backends.h"
#include "app/cli.h"
#include "app/cli_image.h"
#include "core/sandbox_manager.h"

namespace agentbox {

int RmSubcommand(const Args& args) {
  bool force = false;
  std::vector<std::string> refs;
  for (const std::string& a : args) {
    if (a == "-f" || a == "--force") {
      force = true;
    } else if (a == "-h" || a == "--help") {
      WriteStdout(
          "Usage: agentbox rm [-f] ID|NAME...\n\nKills everything in the sandboxes and "
          "removes them; a workspace you gave is kept.\n  -f, --force   also when "
          "commands are running\n");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return FailWith(InvalidArgument("rm: unknown option \"" + a + "\""));
    } else {
      refs.push_back(a);
    }
  }
  if (refs.empty()) return FailWith(InvalidArgument("usage: agentbox rm [-f] ID|NAME..."));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  int status = 0;
  for (const std::string& ref : refs) {
    Status st = manager->Remove(ref, force);
    if (st.ok()) {
      WriteStdout(ref + "\n");
    } else {
      status = FailWith(st);
    }
  }
  return status;
}

int GcSubcommand(const Args& args) {
  if (!args.empty()) {
    if (args[0] == "-h" || args[0] == "--help") {
      WriteStdout(
          "Usage: agentbox gc\n\nRemoves dead sandboxes and whatever a crash left "
          "behind: processes, cgroups, state, private workspaces; and the image store's\n"
          "layers that no image uses and unfinished downloads.\n");
      return 0;
    }
    return FailWith(InvalidArgument("gc takes no arguments"));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  for (const std::string& line : manager->Gc().removed) WriteStdout("removed " + line + "\n");
  for (const std::string& line : CollectImageGarbage()) WriteStdout(line + "\n");
  return 0;
}

}  // namespace agentbox
