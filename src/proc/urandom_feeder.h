// The streams behind a seeded sandbox's /dev/urandom and /dev/random (proc/urandom_watch.h):
// each open gets the read end of a new pipe, and one thread of the supervisor writes that open's
// stream (proc/seeded_random.h, seeded with UrandomOpenSeed) into its write end for as long as
// the pipe has a reader. So a stream has no end (`head -c 10000000 /dev/urandom` works), and a
// reader that stops early costs nothing: its last close hangs the pipe up and the thread drops
// it (EPIPE, with SIGPIPE blocked in that thread alone).
//
// The thread, not the listener's poll loop, writes: a slow reader then never delays the answer
// to another call, and the supervisors (proc/supervisor.h) keep one loop shape. It starts at the
// first open and ends, closing every write end (readers then see EOF), when the feeder is
// destroyed: when the supervision of the command is over.
#pragma once

#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

class UrandomFeeder {
 public:
  explicit UrandomFeeder(uint64_t seed) : seed_(seed) {}
  ~UrandomFeeder();
  UrandomFeeder(const UrandomFeeder&) = delete;
  UrandomFeeder& operator=(const UrandomFeeder&) = delete;

  // The read end of a pipe that gives the next open's stream (the first call the stream of
  // UrandomOpenSeed(seed, 1), then 2, ...), O_NONBLOCK when `nonblocking`, O_CLOEXEC here.
  StatusOr<UniqueFd> Open(bool nonblocking);

  // How many pipes are still fed (for tests: a closed reader's pipe is dropped).
  size_t fed() const;

 private:
  struct Feed;
  void Run();
  void Wake();

  const uint64_t seed_;
  uint64_t opens_ = 0;
  mutable std::mutex mu_;
  std::vector<UniqueFd> incoming_;  // write ends not yet taken by the thread
  std::vector<uint64_t> incoming_seeds_;
  size_t fed_ = 0;
  bool stop_ = false;
  UniqueFd wake_;  // eventfd: new pipes or stop
  std::thread thread_;
};

}  // namespace agentbox
