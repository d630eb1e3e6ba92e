#include "app/cli_stop_signals.h"

namespace agentbox {
namespace {

// The watcher's own wake-up: sent by the destructor when no stop signal came.
constexpr int kWake = SIGUSR2;

sigset_t WatchedSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, kWake}) sigaddset(&set, sig);
  return set;
}

}  // namespace

StopSignalWatch::StopSignalWatch(ExecCancellation& cancellation) {
  const sigset_t set = WatchedSignals();
  ::pthread_sigmask(SIG_BLOCK, &set, &saved_mask_);
  watcher_ = std::thread([this, &cancellation, set] {
    int sig = 0;
    if (::sigwait(&set, &sig) == 0 && sig != kWake) {
      stopped_by_ = sig;
      cancellation.Cancel();
    }
  });
}

StopSignalWatch::~StopSignalWatch() {
  if (stopped_by_ == 0) ::pthread_kill(watcher_.native_handle(), kWake);
  watcher_.join();
  // A second Ctrl-C that came meanwhile is pending: taken here, not left to kill us later.
  const sigset_t set = WatchedSignals();
  struct timespec none = {0, 0};
  while (::sigtimedwait(&set, nullptr, &none) > 0) {
  }
  ::pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
}

}  // namespace agentbox
