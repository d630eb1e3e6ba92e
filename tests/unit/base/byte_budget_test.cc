#include "base/byte_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>

namespace agentbox {
namespace {

TEST(ByteBudgetTest, HoldsAndGivesBack) {
  ByteBudget budget(100);
  {
    auto a = budget.Reserve(60);
    auto b = budget.Reserve(40);
    EXPECT_EQ(budget.held(), 100u);
  }
  EXPECT_EQ(budget.held(), 0u);
}

// A reservation past the budget waits for the one it would not fit beside, and gets in when
// that one is given back: the waiter is observed waiting (held stays at 60) before the release.
TEST(ByteBudgetTest, PastTheBudgetWaitsForRoom) {
  ByteBudget budget(100);
  std::atomic<bool> got{false};
  std::optional<ByteBudget::Reservation> first;
  first.emplace(budget.Reserve(60));
  std::thread waiter([&] {
    auto r = budget.Reserve(50);
    got = true;
  });
  for (int i = 0; i < 100 && !got; ++i) std::this_thread::yield();
  EXPECT_FALSE(got);
  EXPECT_EQ(budget.held(), 60u);
  first.reset();
  waiter.join();
  EXPECT_TRUE(got);
  EXPECT_EQ(budget.held(), 0u);
}

// One result bigger than the whole budget is never refused for good: it goes alone.
TEST(ByteBudgetTest, LargerThanTheBudgetGoesAlone) {
  ByteBudget budget(100);
  auto big = budget.Reserve(500);
  EXPECT_EQ(budget.held(), 500u);
}

}  // namespace
}  // namespace agentbox
