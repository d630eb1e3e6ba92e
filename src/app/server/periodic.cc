#include "app/server/periodic.h"

namespace agentbox {

Periodic::Periodic(std::chrono::steady_clock::duration period, std::function<void()> task) {
  thread_ = std::thread([this, period, task = std::move(task)] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, period, [this] { return stop_; })) {
      lock.unlock();
      task();
      lock.lock();
    }
  });
}

Periodic::~Periodic() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

}  // namespace agentbox
