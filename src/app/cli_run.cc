// `agentbox run [OPTIONS] -- COMMAND [ARG...]`: parse, resolve the spec, run, render the result.
#include <signal.h>

#include "app/backends.h"
#include "app/cli.h"
#include "app/cli_image.h"
#include "app/cli_sandbox_result.h"
#include "app/cli_stop_signals.h"
#include "core/sandbox_manager.h"
#include "core/state_store.h"
#include "native/native_run.h"
#include "proto/exec_output.h"
#include "proto/exec_result.h"
#include "proto/output_capture.h"
#include "spec/run_args.h"

namespace agentbox {
namespace {

// A backend without a one-shot path (docker, kubernetes): SandboxManager::RunOnce. SIGINT, SIGTERM
// and SIGHUP cancel the exec (the agent kills the command's tree); the sandbox is removed anyway.
ExecResult RunInPersistentSandbox(const SandboxSpec& spec, const std::vector<std::string>& argv,
                                  OutputCapture& capture) {
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return ErrorResult(manager.status());
  ExecCancellation cancellation;
  Status removed;
  StatusOr<ExecResult> result = Internal("not run");
  int stopped_by = 0;
  {
    StopSignalWatch watch(cancellation);
    result = manager->RunOnce(spec, argv, capture, &cancellation, &removed);
    stopped_by = watch.signal();
  }
  if (stopped_by != 0) {
    ExecResult killed = ErrorResult(Unavailable("stopped by signal " + std::to_string(stopped_by)));
    killed.exit_code = 128 + stopped_by;
    return killed;
  }
  if (!result.ok()) return ErrorResult(result.status());
  if (!removed.ok()) PrintError(removed.message());
  return *result;
}

ExecResult RunWithBackend(const SandboxSpec& spec, const std::vector<std::string>& argv,
                          OutputCapture& capture) {
  if (spec.backend != BackendKind::kNative) return RunInPersistentSandbox(spec, argv, capture);
  return RunNative(spec, argv, capture, StateRootPath());
}

}  // namespace

int RunSubcommand(const Args& args) {
  StatusOr<RunInvocation> invocation = ParseRunArgs(args);
  if (!invocation.ok()) return FailWith(invocation.status());
  if (invocation->help) {
    WriteStdout(FormatHelp(RunHelp()));
    return 0;
  }
  StatusOr<SandboxSpec> spec = ResolveRunSpec(*invocation);
  if (!spec.ok()) return ReportResult(ErrorResult(spec.status()), invocation->json);
  if (invocation->pull) {
    if (Status st = PullIfMissing(*spec); !st.ok()) {
      return ReportResult(ErrorResult(st), invocation->json);
    }
  }
  // A closed stdout must not kill agentbox mid-run (the command's tree would be left to the
  // timeout); writes then fail with EPIPE, which OutputCapture ignores. Sandbox children must
  // reset SIGPIPE to SIG_DFL before exec, since an ignored disposition survives execve.
  ::signal(SIGPIPE, SIG_IGN);
  OutputCapture capture(spec->limits.output_bytes, /*forward_fds=*/!invocation->json);
  ExecResult result = RunWithBackend(*spec, invocation->argv, capture);
  TakeOutput(capture, invocation->json, &result);
  // `run` says it every time (a sandbox says it once, at create): no limit goes unheld unsaid.
  // A run that never started has only its error to say, in one line.
  std::string note = result.reason == ExitReason::kError ? "" : UnheldDiskLimitNote(result);
  if (!note.empty()) PrintError(note);
  return ReportResult(result, invocation->json);
}

}  // namespace agentbox
