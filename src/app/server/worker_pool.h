// A bounded pool of threads for request handlers, which block (on a command, an agent, a helper
// process): the event loop hands each complete request to a pool and goes on serving the others.
//
// Threads are started as jobs need them, up to `max_threads`, and end after kIdleExit without a
// job (an idle server holds no thread but the loop's); a job that finds every thread busy waits
// in the queue (each connection has at most one job, so the queue is bounded by the
// connection cap).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace agentbox {

class WorkerPool {
 public:
  static constexpr std::chrono::seconds kIdleExit{2};

  explicit WorkerPool(size_t max_threads) : max_threads_(max_threads) {}
  ~WorkerPool() { Stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `job`. False when the pool has no thread and cannot start one (out of threads): the
  // job is then dropped, and the caller answers for it.
  bool Submit(std::function<void()> job);
  // Lets the queued jobs finish, then waits for every thread to end.
  void Stop();

  size_t threads() const;

 private:
  void Work();

  const size_t max_threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;   // a job, or stop
  std::condition_variable ended_;  // a thread ended
  std::deque<std::function<void()>> queue_;
  size_t live_ = 0;  // threads running Work()
  size_t idle_ = 0;  // of which waiting for a job
  bool stopping_ = false;
};

}  // namespace agentbox
