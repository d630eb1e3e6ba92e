#include "base/byte_budget.h"

namespace agentbox {

ByteBudget::Reservation ByteBudget::Reserve(uint64_t bytes) {
  std::unique_lock<std::mutex> lock(mu_);
  freed_.wait(lock, [&] { return held_ == 0 || held_ + bytes <= limit_; });
  held_ += bytes;
  return Reservation(this, bytes);
}

uint64_t ByteBudget::held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_;
}

void ByteBudget::Release(uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ -= bytes;
  }
  freed_.notify_all();
}

}  // namespace agentbox
