// While a StopSignalWatch lives, SIGINT (Ctrl-C), SIGTERM and SIGHUP to agentbox do not kill it:
// they cancel one exec (the agent then kills the command's whole process tree), so agentbox can
// still remove what it made and print the command's result.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <thread>

#include "core/agent_exec.h"

namespace agentbox {

class StopSignalWatch {
 public:
  // Blocks the three signals in this thread (call before starting other threads) and starts a
  // watcher that cancels `cancellation` when one comes.
  explicit StopSignalWatch(ExecCancellation& cancellation);
  ~StopSignalWatch();  // stops the watcher and restores the signal mask
  StopSignalWatch(const StopSignalWatch&) = delete;
  StopSignalWatch& operator=(const StopSignalWatch&) = delete;

  // The signal that cancelled the exec; 0 while none came.
  int signal() const { return stopped_by_.load(); }

 private:
  sigset_t saved_mask_;
  std::atomic<int> stopped_by_{0};
  std::thread watcher_;
};

}  // namespace agentbox
