// UniqueFd: sole owner of one file descriptor; closes it when destroyed.
//
// Move-only. Used on both sides of clone, but never constructed between clone and exec (the
// destructor is fine there: close() is async-signal-safe).
#pragma once

#include <unistd.h>

#include <utility>

namespace agentbox {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }

  // Gives up ownership without closing.
  int release() { return std::exchange(fd_, -1); }

  // Closes the current fd (if any) and owns `fd` instead.
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// A pipe whose both ends are O_CLOEXEC.
struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

}  // namespace agentbox
