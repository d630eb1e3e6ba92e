#include "proc/outcome.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstring>

namespace agentbox {

std::string DescribeChildError(const ChildError& err) {
  std::string detail = err.detail[0] ? std::string(" ") + err.detail : "";
  return std::string(ChildStepName(err.step)) + detail + ": " + std::strerror(err.err);
}

namespace {

// Maps the outcome of one supervised sandbox to the docs/contract.md §1 result.
void FillOutcomeResult(const SupervisionOutcome& outcome, const CgroupStats& stats, ExecResult& r) {
  if (stats.memory_limit_hit || stats.oom_killed) r.AddLimitHit(kLimitMemory);
  if (stats.pids_limit_hit) r.AddLimitHit(kLimitPids);
  if (stats.cpu_throttled) r.AddLimitHit(kLimitCpu);
  if (outcome.timed_out) {
    r.AddLimitHit(kLimitTimeout);
    r.reason = ExitReason::kTimeout;
    r.exit_code = 124;
    return;
  }
  if (outcome.command_status) {
    int st = *outcome.command_status;
    if (WIFEXITED(st)) {
      r.reason = ExitReason::kExited;
      r.exit_code = WEXITSTATUS(st);
      return;
    }
    int sig = WTERMSIG(st);
    r.signal = sig;
    r.exit_code = 128 + sig;
    r.reason = (sig == SIGKILL && stats.oom_killed) ? ExitReason::kOom : ExitReason::kSignaled;
    return;
  }
  // No status: the sandbox was killed from outside (agentbox's own signal).
  int sig = outcome.host_signal.value_or(SIGKILL);
  r.signal = outcome.host_signal ? sig : SIGKILL;
  r.exit_code = 128 + sig;
  r.reason = stats.oom_killed ? ExitReason::kOom : ExitReason::kSignaled;
}

// A setup failure means the command never ran: 125, except exec failures, which are the
// command's own 126/127 like a shell's.
void FillSetupErrorResult(const ChildError& err, ExecResult& r) {
  std::string what = DescribeChildError(err);
  if (err.step == ChildStep::kExec) {
    r.reason = ExitReason::kExited;
    r.exit_code = err.err == ENOENT ? 127 : 126;
    r.stderr_data = "agentbox: " + what + "\n";
    return;
  }
  // A working directory the command may not enter is the request's fault, said as the errno
  // says it (not_found, permission_denied); any other step is the host not giving the sandbox.
  std::string message = "sandbox setup failed: " + what;
  StatusCode code =
      err.step == ChildStep::kCwd ? ErrnoStatus("", err.err).code() : StatusCode::kUnavailable;
  r = ErrorResult(Status(code, message));
}

}  // namespace

ExecResult ResultOfSupervision(const SupervisionOutcome& outcome, const CgroupStats* stats,
                               OutputCapture& output) {
  ExecResult r;
  if (outcome.setup_error) {
    FillSetupErrorResult(*outcome.setup_error, r);
    if (!r.stderr_data.empty()) output.Append(OutputStream::kStderr, r.stderr_data);
    r.stderr_data.clear();
  } else {
    FillOutcomeResult(outcome, stats ? *stats : CgroupStats{}, r);
  }
  if (outcome.disk_refused) r.AddLimitHit(kLimitDisk);
  r.cpu_ms = stats ? stats->cpu_ms : outcome.cpu_ms;
  r.peak_memory_bytes = stats ? stats->peak_memory_bytes : outcome.max_rss_bytes;
  r.stdout_truncated = output.truncated(OutputStream::kStdout);
  r.stderr_truncated = output.truncated(OutputStream::kStderr);
  if (r.stdout_truncated || r.stderr_truncated) r.AddLimitHit(kLimitOutput);
  return r;
}

}  // namespace agentbox
