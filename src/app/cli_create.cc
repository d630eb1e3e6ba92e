// `agentbox create [OPTIONS of run] [--name NAME]`: prints the new sandbox's id.
#include "app/backends.h"
#include "app/cli.h"
#include "app/cli_image.h"
#include "core/sandbox_manager.h"
#include "proto/exec_result.h"
#include "spec/run_args.h"

namespace agentbox {

int CreateSubcommand(const Args& args) {
  auto invocation = ParseCreateArgs(args);
  if (!invocation.ok()) return FailWith(invocation.status());
  if (invocation->run.help) {
    WriteStdout(FormatHelp(CreateHelp()));
    return 0;
  }
  auto spec = ResolveRunSpec(invocation->run);
  if (!spec.ok()) return FailWith(spec.status());
  if (invocation->run.pull) {
    if (Status st = PullIfMissing(*spec); !st.ok()) return FailWith(st);
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto record =
      manager->Create(*spec, invocation->name,
                      {invocation->tenant, invocation->tenant_name, invocation->mcp_session});
  if (!record.ok()) return FailWith(record.status());
  if (invocation->run.json) {
    // The new sandbox as `inspect` shows it; a sandbox gone meanwhile (a ttl of a second) says so.
    auto json = manager->InspectJson(record->id);
    if (!json.ok()) return FailWith(json.status());
    WriteStdout(*json + "\n");
  } else {
    WriteStdout(record->id + "\n");
  }
  ExecResult about;  // the note `run` prints, once for the sandbox's life
  about.disk_limit = DiskLimitReportOf(record->disk_quota);
  if (std::string note = UnheldDiskLimitNote(about); !note.empty()) PrintError(note);
  if (std::string note = UnheldPidsLimitNote(manager->PidsLimitOf(*record)); !note.empty()) {
    PrintError(note);
  }
  return 0;
}

}  // namespace agentbox
