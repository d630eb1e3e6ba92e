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
    WriteStdout(
        "Usage: agentbox create [OPTIONS] [--name NAME] [--ttl DURATION]\n"
        "                       [--idle-timeout DURATION]\n\n"
        "Creates a sandbox that outlives this command and prints its id. The options are\n"
        "those of `agentbox run`; --timeout and --output-limit become the defaults of each\n"
        "`agentbox exec`, the others hold for the sandbox as a whole: --disk-limit bounds\n"
        "what its workspace gains over the sandbox's life.\n\n"
        "Options:\n  --name NAME   a unique name to use instead of the id\n"
        "  --ttl DURATION|none\n"
        "                the sandbox's lifetime (30m, 8h, 2d): once it has passed, the sandbox\n"
        "                is removed as `rm -f` would (default: none)\n"
        "  --idle-timeout DURATION|none\n"
        "                removed the same way once unused this long: no exec running or\n"
        "                ended, no file copied in or out (default: none)\n" +
        FormatFlagHelp(RunFlagDefs()));
    return 0;
  }
  auto spec = ResolveRunSpec(invocation->run);
  if (!spec.ok()) return FailWith(spec.status());
  if (invocation->run.pull) {
    if (Status st = PullIfMissing(*spec); !st.ok()) return FailWith(st);
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto record = manager->Create(*spec, invocation->name);
  if (!record.ok()) return FailWith(record.status());
  WriteStdout(record->id + "\n");
  ExecResult about;  // the note `run` prints, once for the sandbox's life
  about.disk_limit = DiskLimitReportOf(record->disk_quota);
  if (std::string note = UnheldDiskLimitNote(about); !note.empty()) PrintError(note);
  return 0;
}

}  // namespace agentbox
