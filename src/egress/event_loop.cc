#include "egress/event_loop.h"

#include <sys/epoll.h>

#include <cerrno>
#include <vector>

namespace agentbox::egress {

Status EventLoop::Init() {
  epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return ErrnoStatus("epoll_create1");
  return OkStatus();
}

EventLoop::Slot* EventLoop::SlotFor(int fd, EventHandler* handler) {
  const size_t i = static_cast<size_t>(fd);
  if (i >= slots_.size()) slots_.resize(i + 1);
  if (slots_[i] == nullptr) slots_[i] = std::make_unique<Slot>(Slot{fd, nullptr});
  slots_[i]->handler = handler;
  return slots_[i].get();
}

Status EventLoop::Add(int fd, uint32_t events, EventHandler* handler) {
  struct epoll_event ev = {};
  ev.events = events;
  ev.data.ptr = SlotFor(fd, handler);
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
    slots_[static_cast<size_t>(fd)]->handler = nullptr;
    return ErrnoStatus("epoll_ctl add");
  }
  return OkStatus();
}

void EventLoop::Modify(int fd, uint32_t events, EventHandler* handler) {
  struct epoll_event ev = {};
  ev.events = events;
  ev.data.ptr = SlotFor(fd, handler);
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, fd, &ev);
}

void EventLoop::Remove(int fd) {
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
  const size_t i = static_cast<size_t>(fd);
  if (i < slots_.size() && slots_[i] != nullptr) slots_[i]->handler = nullptr;
}

Status EventLoop::RunOnce(int timeout_ms) {
  struct epoll_event events[64];
  const int n = ::epoll_wait(epoll_.get(), events, 64, timeout_ms);
  if (n < 0) return errno == EINTR ? OkStatus() : ErrnoStatus("epoll_wait");
  for (int i = 0; i < n; ++i) {
    Slot* slot = static_cast<Slot*>(events[i].data.ptr);
    if (slot->handler != nullptr) slot->handler->OnEvents(slot->fd, events[i].events);
  }
  return OkStatus();
}

}  // namespace agentbox::egress
