// `agentbox exec [OPTIONS] ID|NAME -- COMMAND`: one command in a running sandbox.
#include <signal.h>

#include <chrono>

#include "app/backends.h"
#include "app/cli.h"
#include "app/cli_sandbox_result.h"
#include "app/cli_stop_signals.h"
#include "app/cli_terminal.h"
#include "core/sandbox_manager.h"
#include "proto/exec_output.h"
#include "proto/process_wire.h"
#include "spec/exec_args.h"

namespace agentbox {
namespace {

// `exec -d`: the process's id (its info with --json), or, when it could not be executed, its
// result as a plain exec would have said it.
int StartBackgroundProcess(SandboxManager& manager, const SandboxRecord& record,
                           ExecRequest request, const ExecInvocation& inv) {
  if (!inv.timeout_seconds) request.timeout_seconds = 0;  // none: it runs until it ends
  request.interactive = inv.pass_stdin;
  auto info = manager.StartProcess(record, request);
  if (!info.ok()) return ReportResult(ErrorResult(info.status()), inv.json);
  if (info->result && info->result->exit_code != 0) {
    // Its own words (a setup error's line, say) are its output: shown as a plain exec shows them.
    OutputCapture capture(request.output_limit, /*forward_fds=*/!inv.json);
    ExecResult r = *info->result;
    (void)manager.ProcessOutput(record, info->id, /*follow=*/false, 0, capture);
    TakeOutput(capture, inv.json, &r);
    return ReportResult(r, inv.json);
  }
  WriteStdout(inv.json ? ProcessInfoToJson(*info) + "\n" : info->id + "\n");
  return 0;
}

// `exec -t`: the terminal mode is back to what it was before the result is printed.
StatusOr<ExecResult> ExecOnTerminal(SandboxManager& manager, const SandboxRecord& record,
                                    ExecRequest request, bool forward_input,
                                    OutputCapture& capture) {
  request.tty = true;
  const WindowSize size = CliTerminal::CurrentSize();
  request.rows = size.rows;
  request.cols = size.cols;
  AB_ASSIGN_OR_RETURN(auto terminal, CliTerminal::Open(forward_input));
  return manager.Exec(record, request, capture, -1, nullptr, terminal.get());
}

// A plain exec: Ctrl-C, SIGTERM or SIGHUP cancel it (the agent kills the command's whole tree)
// and its result says so, as a shell says a command Ctrl-C ended: signaled, 128+N, and the
// output it made until then.
StatusOr<ExecResult> ExecUntilStopped(SandboxManager& manager, const SandboxRecord& record,
                                      const ExecRequest& request, bool pass_stdin,
                                      OutputCapture& capture) {
  const auto start = std::chrono::steady_clock::now();
  ExecCancellation cancellation;
  StatusOr<ExecResult> result = Internal("not run");
  int stopped_by = 0;
  {
    StopSignalWatch watch(cancellation);
    result = manager.Exec(record, request, capture, pass_stdin ? 0 : -1, &cancellation);
    stopped_by = watch.signal();
  }
  if (stopped_by == 0) return result;
  ExecResult stopped;
  stopped.reason = ExitReason::kSignaled;
  stopped.signal = stopped_by;
  stopped.exit_code = 128 + stopped_by;
  stopped.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return stopped;
}

}  // namespace

int ExecSubcommand(const Args& args) {
  auto inv = ParseExecArgs(args);
  if (!inv.ok()) return FailWith(inv.status());
  if (inv->help) {
    WriteStdout(FormatHelp(ExecHelp()));
    return 0;
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return ReportResult(ErrorResult(manager.status()), inv->json);
  auto status = manager->Find(inv->sandbox);
  if (!status.ok()) return ReportResult(ErrorResult(status.status()), inv->json);
  ExecRequest request = SandboxManager::DefaultExecRequest(status->record);
  request.argv = inv->argv;
  for (const auto& kv : inv->env) request.env.push_back(kv);
  if (inv->cwd) request.cwd = *inv->cwd;
  if (inv->timeout_seconds) request.timeout_seconds = *inv->timeout_seconds;
  if (inv->output_limit) request.output_limit = *inv->output_limit;
  if (inv->detach) return StartBackgroundProcess(*manager, status->record, request, *inv);
  ::signal(SIGPIPE, SIG_IGN);
  OutputCapture capture(request.output_limit, /*forward_fds=*/!inv->json);
  StatusOr<ExecResult> result = Internal("not run");
  if (inv->tty) {
    result = ExecOnTerminal(*manager, status->record, request, inv->pass_stdin, capture);
  } else if (inv->rollback_on_failure) {
    request.pass_stdin = inv->pass_stdin;
    result = manager->ExecWithRollback(status->record, request, capture, inv->pass_stdin ? 0 : -1);
  } else {
    request.pass_stdin = inv->pass_stdin;
    result = ExecUntilStopped(*manager, status->record, request, inv->pass_stdin, capture);
  }
  ExecResult r = result.ok() ? *result : ErrorResult(result.status());
  TakeOutput(capture, inv->json, &r);
  return ReportResult(r, inv->json);
}

}  // namespace agentbox
