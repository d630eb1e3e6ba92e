// `agentbox run [OPTIONS] -- COMMAND [ARG...]`: parse, resolve the spec, run, render the result.
#include <signal.h>

#include <algorithm>

#include "app/cli.h"
#include "app/cli_sandbox_result.h"
#include "core/exec_result.h"
#include "core/output_capture.h"
#include "core/state_store.h"
#include "native/native_run.h"
#include "spec/run_args.h"

namespace agentbox {
namespace {

ExecResult RunWithBackend(const SandboxSpec& spec, const std::vector<std::string>& argv,
                          OutputCapture& capture) {
  if (spec.backend == "docker") {
    return ErrorResult("backend docker is not available in this build yet");
  }
  return RunNative(spec, argv, capture);
}

}  // namespace

int RunSubcommand(const Args& args) {
  StatusOr<RunInvocation> invocation = ParseRunArgs(args);
  if (!invocation.ok()) return FailWith(invocation.status());
  if (invocation->help) {
    WriteStdout(RunUsage());
    return 0;
  }
  StatusOr<SandboxSpec> spec = ResolveRunSpec(*invocation);
  if (spec.ok() && spec->workspace) {
    if (Status st = CheckWorkspaceOutsideState(*spec->workspace); !st.ok()) spec = st;
  }
  if (!spec.ok()) return ReportResult(ErrorResult(spec.status().message()), invocation->json);
  // A closed stdout must not kill agentbox mid-run (the command's tree would be left to the
  // timeout); writes then fail with EPIPE, which OutputCapture ignores. Sandbox children must
  // reset SIGPIPE to SIG_DFL before exec, since an ignored disposition survives execve.
  ::signal(SIGPIPE, SIG_IGN);
  OutputCapture capture(spec->limits.output_bytes, /*forward_fds=*/!invocation->json);
  ExecResult result = RunWithBackend(*spec, invocation->argv, capture);
  TakeOutput(capture, invocation->json, &result);
  return ReportResult(result, invocation->json);
}

}  // namespace agentbox
