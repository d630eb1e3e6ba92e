#include "app/server/worker_pool.h"

#include <system_error>
#include <thread>

namespace agentbox {

bool WorkerPool::Submit(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_ <= queue_.size() && live_ < max_threads_) {
    try {
      // Detached: a thread that ends on its own (idle) must not wait for a join; Stop waits
      // for live_ instead.
      std::thread([this] { Work(); }).detach();
      ++live_;
      ++idle_;
    } catch (const std::system_error&) {
      // Out of threads: the ones we have will take the job in turn.
      if (live_ == 0) return false;
    }
  }
  queue_.push_back(std::move(job));
  wake_.notify_one();
  return true;
}

void WorkerPool::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    const bool woken =
        wake_.wait_for(lock, kIdleExit, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      if (woken && !stopping_) continue;
      break;  // idle too long, or stopping with nothing left
    }
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    --idle_;
    lock.unlock();
    job();
    job = nullptr;  // what it holds is released before this thread waits again
    lock.lock();
    ++idle_;
  }
  --idle_;
  --live_;
  ended_.notify_all();
}

void WorkerPool::Stop() {
  std::unique_lock<std::mutex> lock(mutex_);
  stopping_ = true;
  wake_.notify_all();
  ended_.wait(lock, [this] { return live_ == 0; });
}

size_t WorkerPool::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_;
}

}  // namespace agentbox
