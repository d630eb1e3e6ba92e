#include "proc/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "proto/output_walls.h"

namespace agentbox {
namespace {

// How often a loop past the deadline, or draining, looks again.
constexpr auto kRecheckInterval = std::chrono::milliseconds(100);
// After the init is gone every writer of the pipes is dead; this only bounds a kernel delay.
constexpr auto kDrainGrace = std::chrono::seconds(2);

sigset_t SupervisorSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

enum Slot { kStdout, kStderr, kStatus, kError, kInit, kSignal, kCancel, kListener, kSlots };

class Loop {
 public:
  Loop(SupervisedSandbox& box, OutputCapture& output, const SupervisionLimits& limits)
      : box_(box),
        output_(output),
        limits_(limits),
        listener_(std::move(box.listener_read), box.watch_fallocate, box.workspace_dev,
                  box.random_seed) {
    sigset_t set = SupervisorSignals();
    signal_fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    int fds[kSlots] = {box.stdout_read.get(), box.stderr_read.get(), box.status_read.get(),
                       box.error_read.get(),  box.pidfd.get(),       signal_fd_.get(),
                       limits.cancel_fd,      listener_.fd()};
    for (int i = 0; i < kSlots; ++i) {
      pfds_[i] = {fds[i], POLLIN, 0};
      if (i != kInit && i != kCancel && i != kListener && fds[i] >= 0) {
        ::fcntl(fds[i], F_SETFL, O_NONBLOCK);
      }
    }
  }

  SupervisionOutcome Run() {
    std::optional<std::chrono::steady_clock::time_point> drain_until;
    while (pfds_[kStdout].fd >= 0 || pfds_[kStderr].fd >= 0 ||
           (pfds_[kInit].fd >= 0 && !(limits_.finish_on_report && outcome_.command_status)) ||
           AwaitingStatusWithoutPidfd()) {
      auto now = std::chrono::steady_clock::now();
      if (drain_until && now >= *drain_until) break;
      if (!init_exited_ && !outcome_.timed_out && now >= limits_.deadline) {
        outcome_.timed_out = true;
        limits_.kill_all();
      }
      auto wake = init_exited_ ? *drain_until : limits_.deadline;
      if (init_exited_ || outcome_.timed_out) wake = std::min(wake, now + kRecheckInterval);
      // Bounded: a background process without a timeout has the deadline time_point::max().
      int timeout_ms = static_cast<int>(std::min<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count() + 1, 60000));
      int n = ::poll(pfds_, kSlots, std::max(timeout_ms, 0));
      if (n < 0 && errno != EINTR) break;
      if (n <= 0) continue;
      HandleReady();
      if (limits_.output_is_terminal && TreeGone()) DrainTerminal();
      if (init_exited_ && !drain_until)
        drain_until = std::chrono::steady_clock::now() + kDrainGrace;
    }
    // Records written just before the init exited are still in the pipes.
    ReadStatus();
    ReadError();
    outcome_.disk_refused = listener_.disk_refused();
    outcome_.syscalls_observed = listener_.observed();
    outcome_.denied_syscalls = listener_.denied();
    outcome_.output_walls = stderr_walls_.Walls();
    return outcome_;
  }

 private:
  void HandleReady() {
    for (int s : {kStdout, kStderr}) {
      if (pfds_[s].fd >= 0 && pfds_[s].revents) Pump(s);
    }
    if (pfds_[kStatus].fd >= 0 && pfds_[kStatus].revents) ReadStatus();
    if (pfds_[kError].fd >= 0 && pfds_[kError].revents) ReadError();
    if (pfds_[kSignal].fd >= 0 && pfds_[kSignal].revents) ReadSignal();
    if (pfds_[kCancel].fd >= 0 && pfds_[kCancel].revents) CheckCancel();
    if (pfds_[kInit].fd >= 0 && pfds_[kInit].revents) ReapInit();
    if (pfds_[kListener].fd >= 0 && pfds_[kListener].revents) {
      listener_.OnReady(pfds_[kListener].revents);
      pfds_[kListener].fd = listener_.fd();  // the channel gives way to the listener, then none
    }
  }

  // The init reported (by then it killed and reaped the tree), exited, or its status pipe,
  // which it alone holds, is closed: nothing of the tree can write any more.
  bool TreeGone() const { return outcome_.command_status || init_exited_ || pfds_[kStatus].fd < 0; }

  // What the terminal's master still holds, then its end (see output_is_terminal).
  void DrainTerminal() {
    while (pfds_[kStdout].fd >= 0) Pump(kStdout);
  }

  // Without a pidfd (gVisor has no pidfd_open) the init's exit shows only as its report, or the
  // EOF of the status pipe it alone holds: wait for one of them, not just for the output's EOF.
  bool AwaitingStatusWithoutPidfd() const {
    return !box_.pidfd.valid() && pfds_[kStatus].fd >= 0 && !outcome_.command_status;
  }

  void ReapInit() {
    struct rusage usage = {};
    int status;
    while (::wait4(box_.pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    outcome_.cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
                      (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
    outcome_.max_rss_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;
    pfds_[kInit].fd = -1;
    init_exited_ = true;
  }

  void CheckCancel() {
    char byte;
    ssize_t n = ::recv(pfds_[kCancel].fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && errno == EAGAIN) return;
    pfds_[kCancel].fd = -1;
    if (n > 0) return;  // nothing is sent during an exec; stop watching rather than spin
    outcome_.cancelled = true;
    limits_.kill_all();
  }

  void Pump(int slot) {
    char buf[64 * 1024];
    for (int i = 0; i < 16; ++i) {  // bounded: let the other stream and the timer have a turn
      ssize_t n = ::read(pfds_[slot].fd, buf, sizeof(buf));
      if (n > 0) {
        const std::string_view data(buf, static_cast<size_t>(n));
        if (slot == kStderr) stderr_walls_.Feed(data);
        output_.Append(slot == kStdout ? OutputStream::kStdout : OutputStream::kStderr, data);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN && !(limits_.output_is_terminal && TreeGone())) return;
      pfds_[slot].fd = -1;  // EOF or error (or a drained terminal): the stream is done
      return;
    }
  }

  void ReadStatus() {
    if (pfds_[kStatus].fd < 0 || outcome_.command_status) return;
    InitReport report;
    ssize_t n = ::read(pfds_[kStatus].fd, &report, sizeof(report));
    if (n == sizeof(report)) {
      outcome_.command_status = report.command_status;
      outcome_.cpu_ms = static_cast<double>(report.cpu_us) / 1e3;
      outcome_.max_rss_bytes = static_cast<uint64_t>(report.max_rss_kb) * 1024;
      if (report.written_bytes >= 0) outcome_.written_bytes = report.written_bytes;
      if (report.pids_started >= 0) outcome_.pids_started = report.pids_started;
    } else if (n == 0 || errno != EAGAIN) {
      pfds_[kStatus].fd = -1;  // EOF: the init is gone without a report
    }
  }

  void ReadError() {
    if (pfds_[kError].fd < 0 || outcome_.setup_error) return;
    ChildError record;
    ssize_t n = ::read(pfds_[kError].fd, &record, sizeof(record));
    if (n == sizeof(record)) {
      record.detail[sizeof(record.detail) - 1] = '\0';
      outcome_.setup_error = record;
    } else if (n == 0 || (n < 0 && errno != EAGAIN)) {
      pfds_[kError].fd = -1;  // EOF: the command was executed
    }
  }

  void ReadSignal() {
    struct signalfd_siginfo info;
    if (::read(signal_fd_.get(), &info, sizeof(info)) != sizeof(info)) return;
    if (!outcome_.host_signal) outcome_.host_signal = static_cast<int>(info.ssi_signo);
    limits_.kill_all();
  }

  SupervisedSandbox& box_;
  OutputCapture& output_;
  const SupervisionLimits& limits_;
  SeccompListener listener_;
  OutputWalls stderr_walls_;
  UniqueFd signal_fd_;
  struct pollfd pfds_[kSlots];
  bool init_exited_ = false;
  SupervisionOutcome outcome_;
};

}  // namespace

void BlockSupervisorSignals() {
  sigset_t set = SupervisorSignals();
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
}

void UnblockSupervisorSignals() {
  sigset_t set = SupervisorSignals();
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

SupervisionOutcome Supervise(SupervisedSandbox& box, OutputCapture& output,
                             const SupervisionLimits& limits) {
  return Loop(box, output, limits).Run();
}

}  // namespace agentbox
