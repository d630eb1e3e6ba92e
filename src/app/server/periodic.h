// Periodic: calls a function on a thread of its own every `period`, from construction until
// destruction (which wakes and joins the thread, waiting for a call in progress to finish).
// serve's housekeeping: ending idle MCP sessions, removing sandboxes whose ttl has passed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace agentbox {

class Periodic {
 public:
  Periodic(std::chrono::steady_clock::duration period, std::function<void()> task);
  ~Periodic();
  Periodic(const Periodic&) = delete;
  Periodic& operator=(const Periodic&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace agentbox
