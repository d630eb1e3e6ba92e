// EventLoop: one epoll set whose fds each name the handler their events go to. The egress
// proxy's only thread runs it: every socket is non-blocking, nothing waits but epoll_wait.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox::egress {

class EventHandler {
 public:
  virtual ~EventHandler() = default;
  // `events`: EPOLLIN, EPOLLOUT, EPOLLHUP, EPOLLERR as epoll reported them.
  virtual void OnEvents(int fd, uint32_t events) = 0;
};

class EventLoop {
 public:
  Status Init();
  // The handler must outlive the registration; Remove before closing the fd.
  Status Add(int fd, uint32_t events, EventHandler* handler);
  void Modify(int fd, uint32_t events, EventHandler* handler);
  void Remove(int fd);
  // Waits up to timeout_ms (-1: for ever) and dispatches what came, at most 64 events a call.
  Status RunOnce(int timeout_ms);

 private:
  struct Slot {
    int fd;
    EventHandler* handler;
  };
  Slot* SlotFor(int fd, EventHandler* handler);
  UniqueFd epoll_;
  // One slot per fd, reused: the epoll data points at it, so a handler removed while a batch is
  // being dispatched is seen as gone (handler null) rather than called. (A new fd of the same
  // number added in that batch may get a stale event: handlers treat EAGAIN as nothing.)
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace agentbox::egress
