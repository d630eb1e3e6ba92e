// `agentbox exec [OPTIONS] ID|NAME -- COMMAND`: one command in a running sandbox.
#include <signal.h>

#include "app/backends.h"
#include "app/cli.h"
#include "app/cli_sandbox_result.h"
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

}  // namespace

int ExecSubcommand(const Args& args) {
  auto inv = ParseExecArgs(args);
  if (!inv.ok()) return FailWith(inv.status());
  if (inv->help) {
    WriteStdout(ExecUsage());
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
    result = manager->Exec(status->record, request, capture, inv->pass_stdin ? 0 : -1);
  }
  ExecResult r = result.ok() ? *result : ErrorResult(result.status());
  TakeOutput(capture, inv->json, &r);
  return ReportResult(r, inv->json);
}

}  // namespace agentbox
