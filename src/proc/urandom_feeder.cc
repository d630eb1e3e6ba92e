#include "proc/urandom_feeder.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "proc/seeded_random.h"

namespace agentbox {

// One pipe being fed: the bytes of `chunk` from `offset` are the stream's next, not yet written.
struct UrandomFeeder::Feed {
  Feed(UniqueFd fd, uint64_t seed) : write_end(std::move(fd)), stream(seed) {}
  UniqueFd write_end;
  SeededRandom stream;
  unsigned char chunk[16384];
  size_t offset = sizeof(chunk), length = sizeof(chunk);

  // Writes until the pipe is full; false once its reader is gone (or on any other error).
  bool Write() {
    for (int i = 0; i < 8; ++i) {  // bounded: the other pipes have a turn
      if (offset == length) {
        stream.Fill(chunk, sizeof(chunk));
        offset = 0;
      }
      const ssize_t n = ::write(write_end.get(), chunk + offset, length - offset);
      if (n > 0) {
        offset += static_cast<size_t>(n);
      } else if (n < 0 && errno == EAGAIN) {
        return true;
      } else if (!(n < 0 && errno == EINTR)) {
        return false;  // EPIPE: the reader closed it
      }
    }
    return true;
  }
};

UrandomFeeder::~UrandomFeeder() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  Wake();
  thread_.join();
}

StatusOr<UniqueFd> UrandomFeeder::Open(bool nonblocking) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("pipe for a seeded /dev/urandom");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  if (::fcntl(write_end.get(), F_SETFL, O_NONBLOCK) != 0 ||
      (nonblocking && ::fcntl(read_end.get(), F_SETFL, O_NONBLOCK) != 0)) {
    return ErrnoStatus("fcntl O_NONBLOCK on a seeded /dev/urandom");
  }
  if (!wake_.valid()) {
    wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!wake_.valid()) return ErrnoStatus("eventfd for the seeded /dev/urandom");
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    incoming_.push_back(std::move(write_end));
    incoming_seeds_.push_back(UrandomOpenSeed(seed_, ++opens_));
    ++fed_;
  }
  if (!thread_.joinable()) thread_ = std::thread(&UrandomFeeder::Run, this);
  Wake();
  return read_end;
}

size_t UrandomFeeder::fed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fed_;
}

void UrandomFeeder::Wake() {
  const uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof(one));
}

void UrandomFeeder::Run() {
  // A write to a pipe whose reader is gone is EPIPE here, never a SIGPIPE for the supervisor.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
  std::vector<std::unique_ptr<Feed>> feeds;
  std::vector<struct pollfd> pfds;
  for (;;) {
    pfds.assign(1, {wake_.get(), POLLIN, 0});
    for (const auto& feed : feeds) pfds.push_back({feed->write_end.get(), POLLOUT, 0});
    if (::poll(pfds.data(), pfds.size(), -1) < 0 && errno != EINTR) break;
    size_t dropped = 0;
    for (size_t i = feeds.size(); i-- > 0;) {
      const short revents = pfds[i + 1].revents;
      if (revents == 0) continue;
      if ((revents & (POLLERR | POLLHUP)) || !feeds[i]->Write()) {
        feeds.erase(feeds.begin() + static_cast<std::ptrdiff_t>(i));
        ++dropped;
      }
    }
    // The SIGPIPEs of those EPIPEs, pending on this thread: taken, so none is ever delivered.
    const struct timespec now = {0, 0};
    while (::sigtimedwait(&pipe_signal, nullptr, &now) == SIGPIPE) {
    }
    std::lock_guard<std::mutex> lock(mu_);
    fed_ -= dropped;
    if (stop_) break;
    if (pfds[0].revents & POLLIN) {
      uint64_t count;
      (void)!::read(wake_.get(), &count, sizeof(count));
      for (size_t i = 0; i < incoming_.size(); ++i) {
        feeds.push_back(std::make_unique<Feed>(std::move(incoming_[i]), incoming_seeds_[i]));
      }
      incoming_.clear();
      incoming_seeds_.clear();
    }
  }
}

}  // namespace agentbox
