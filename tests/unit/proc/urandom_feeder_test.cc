// The streams behind a seeded /dev/urandom (proc/urandom_feeder.h): each open reads its own
// stream with no end, and a reader that closes early has its pipe dropped.
#include "proc/urandom_feeder.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "proc/seeded_random.h"

namespace agentbox {
namespace {

std::vector<unsigned char> ReadExactly(int fd, size_t n) {
  std::vector<unsigned char> out(n);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = read(fd, out.data() + done, n - done);
    if (r <= 0) break;
    done += static_cast<size_t>(r);
  }
  out.resize(done);
  return out;
}

std::vector<unsigned char> Stream(uint64_t seed, size_t n) {
  std::vector<unsigned char> out(n);
  SeededRandom(seed).Fill(out.data(), n);
  return out;
}

TEST(UrandomFeederTest, EachOpenReadsItsOwnStream) {
  UrandomFeeder feeder(42);
  auto first = feeder.Open(false);
  auto second = feeder.Open(true);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(ReadExactly(first->get(), 100), Stream(UrandomOpenSeed(42, 1), 100));
  EXPECT_TRUE(fcntl(second->get(), F_GETFL) & O_NONBLOCK);
  EXPECT_FALSE(fcntl(first->get(), F_GETFL) & O_NONBLOCK);
  EXPECT_TRUE(fcntl(first->get(), F_GETFD) & FD_CLOEXEC);
  struct pollfd p = {second->get(), POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 10000), 1);
  fcntl(second->get(), F_SETFL, 0);
  EXPECT_EQ(ReadExactly(second->get(), 100), Stream(UrandomOpenSeed(42, 2), 100));
}

TEST(UrandomFeederTest, TheStreamHasNoEnd) {
  UrandomFeeder feeder(7);
  auto fd = feeder.Open(false);
  ASSERT_TRUE(fd.ok());
  const size_t big = 10 * 1000 * 1000;
  EXPECT_EQ(ReadExactly(fd->get(), big), Stream(UrandomOpenSeed(7, 1), big));
}

TEST(UrandomFeederTest, AnEarlyCloseDropsThePipe) {
  UrandomFeeder feeder(1);
  {
    auto fd = feeder.Open(false);
    ASSERT_TRUE(fd.ok());
    EXPECT_EQ(ReadExactly(fd->get(), 1).size(), 1u);
    EXPECT_EQ(feeder.fed(), 1u);
  }
  // The thread sees the hang-up by itself; bounded so that a bug fails instead of hanging.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (feeder.fed() != 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(feeder.fed(), 0u) << "a closed reader's pipe is still fed";
}

TEST(UrandomFeederTest, DestroyingTheFeederEndsTheStreams) {
  UniqueFd kept;
  {
    UrandomFeeder feeder(3);
    auto fd = feeder.Open(false);
    ASSERT_TRUE(fd.ok());
    kept = std::move(*fd);
  }
  // Whatever was in the pipe, then EOF: the write end is closed.
  char buf[65536];
  ssize_t n;
  while ((n = read(kept.get(), buf, sizeof(buf))) > 0) {
  }
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace agentbox
