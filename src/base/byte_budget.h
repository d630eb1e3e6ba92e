// A budget of bytes that threads hold at once (serve: its exec results as JSON text): a
// reservation past it waits until others give theirs back, so serve's memory for them has a
// ceiling however many callers ask at once.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace agentbox {

class ByteBudget {
 public:
  explicit ByteBudget(uint64_t limit) : limit_(limit) {}

  // Held bytes, given back when it goes.
  class Reservation {
   public:
    Reservation(ByteBudget* budget, uint64_t bytes) : budget_(budget), bytes_(bytes) {}
    Reservation(Reservation&& other) noexcept : budget_(other.budget_), bytes_(other.bytes_) {
      other.budget_ = nullptr;
    }
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    Reservation& operator=(Reservation&&) = delete;
    ~Reservation() {
      if (budget_ != nullptr) budget_->Release(bytes_);
    }

   private:
    ByteBudget* budget_;
    uint64_t bytes_;
  };

  // Waits until `bytes` fit beside what is held. One reservation larger than the whole budget
  // waits until nothing else is held, and then goes alone: it is never refused for good.
  Reservation Reserve(uint64_t bytes);
  uint64_t held() const;

 private:
  void Release(uint64_t bytes);

  const uint64_t limit_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  uint64_t held_ = 0;
};

}  // namespace agentbox
