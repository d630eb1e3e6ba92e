// `agentbox run [OPTIONS] -- COMMAND [ARG...]`: parse, resolve the spec, run, render the result.
#include <signal.h>

#include <algorithm>

#include "app/cli.h"
#include "core/exec_result.h"
#include "core/output_capture.h"
#include "native/native_run.h"
#include "spec/run_args.h"

namespace agentbox {
namespace {

// The capture is the source of truth for what was kept and dropped, whichever backend ran.
void TakeOutput(const OutputCapture& capture, bool json, ExecResult* result) {
  for (OutputStream s : {OutputStream::kStdout, OutputStream::kStderr}) {
    const bool is_out = s == OutputStream::kStdout;
    if (json && !capture.kept(s).empty()) {
      (is_out ? result->stdout_data : result->stderr_data) = capture.kept(s);
    }
    if (capture.truncated(s)) {
      (is_out ? result->stdout_truncated : result->stderr_truncated) = true;
      result->AddLimitHit(kLimitOutput);
    }
  }
}

// A result's exit code is a process exit status: keep it in 0..255 whatever a backend returns.
int ExitStatusOf(const ExecResult& result) { return std::clamp(result.exit_code, 0, 255); }

int Report(const ExecResult& result, bool json) {
  if (json) WriteStdout(ExecResultToJson(result) + "\n");
  if (result.reason == ExitReason::kError) PrintError(result.error);
  return ExitStatusOf(result);
}

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
  if (!spec.ok()) return Report(ErrorResult(spec.status().message()), invocation->json);
  // A closed stdout must not kill agentbox mid-run (the command's tree would be left to the
  // timeout); writes then fail with EPIPE, which OutputCapture ignores. Sandbox children must
  // reset SIGPIPE to SIG_DFL before exec, since an ignored disposition survives execve.
  ::signal(SIGPIPE, SIG_IGN);
  OutputCapture capture(spec->limits.output_bytes, /*forward_fds=*/!invocation->json);
  ExecResult result = RunWithBackend(*spec, invocation->argv, capture);
  TakeOutput(capture, invocation->json, &result);
  return Report(result, invocation->json);
}

}  // namespace agentbox
