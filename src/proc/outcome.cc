#include "proc/outcome.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstring>

#include "policy/seccomp_match.h"

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

Wall SeccompWall(const DeniedSyscall& d) {
  Wall w;
  w.wall = kWallSeccomp;
  w.what = d.rule ? SeccompRuleName(*d.rule) : "an unnamed call";
  w.count = d.count;
  w.error = ErrnoName(d.rule ? d.rule->errno_value : EPERM);
  w.rule = "seccomp: " + w.what;
  w.process = d.process;
  w.seen_by = kSeenByKernel;
  w.message = "seccomp denied " + w.what + " (" + w.error + ")" +
              (d.count > 1 ? ", " + std::to_string(d.count) + " times" : "") +
              (d.process.empty() ? "" : ", to " + d.process) + ": " +
              (d.rule ? std::string(d.rule->why) : "no rule of the table names it");
  return w;
}

// What the supervisor saw of the command's effects: denials, its own error messages, usage.
void FillEffects(const SupervisionOutcome& outcome, EffectReport& effects) {
  effects.syscalls_observed = outcome.syscalls_observed;
  if (!outcome.syscalls_observed) {
    effects.syscalls_reason =
        "no seccomp user-notification listener here (gVisor and kernels before 5.0 give none): "
        "the filter still denies the same calls, but they are not itemized";
  }
  for (const DeniedSyscall& d : outcome.denied_syscalls) effects.AddWall(SeccompWall(d));
  for (const Wall& w : outcome.output_walls) effects.AddWall(w);
  effects.processes_started = outcome.pids_started;
  effects.bytes_written = outcome.written_bytes;
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
    FillEffects(outcome, r.effects);
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
