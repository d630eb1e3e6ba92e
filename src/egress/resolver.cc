#include "egress/resolver.h"

#include <netinet/in.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace agentbox::egress {
namespace {

struct Pending {
  Resolver::Done done;
  Resolver* resolver;
};

std::vector<IpAddress> AddressesOf(const struct ares_addrinfo* result) {
  std::vector<IpAddress> out;
  for (const ares_addrinfo_node* node = result ? result->nodes : nullptr; node != nullptr;
       node = node->ai_next) {
    IpAddress a;
    if (node->ai_family == AF_INET) {
      const auto* sin = reinterpret_cast<const struct sockaddr_in*>(node->ai_addr);
      std::memcpy(a.bytes.data(), &sin->sin_addr, 4);
    } else if (node->ai_family == AF_INET6) {
      const auto* sin6 = reinterpret_cast<const struct sockaddr_in6*>(node->ai_addr);
      a.v6 = true;
      std::memcpy(a.bytes.data(), &sin6->sin6_addr, 16);
    } else {
      continue;
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace

Resolver::~Resolver() {
  if (channel_ != nullptr) ares_destroy(channel_);  // runs each pending callback with a cancel
}

Status Resolver::Init() {
  if (int rc = ares_library_init(ARES_LIB_INIT_ALL); rc != ARES_SUCCESS) {
    return Internal(std::string("c-ares: ") + ares_strerror(rc));
  }
  struct ares_options options = {};
  options.sock_state_cb = &Resolver::SocketState;
  options.sock_state_cb_data = this;
  options.timeout = 2000;  // ms per try
  options.tries = 2;
  const int mask = ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES;
  if (int rc = ares_init_options(&channel_, &options, mask); rc != ARES_SUCCESS) {
    return Internal(std::string("c-ares: ") + ares_strerror(rc));
  }
  return OkStatus();
}

void Resolver::SocketState(void* self, ares_socket_t fd, int readable, int writable) {
  auto* r = static_cast<Resolver*>(self);
  const uint32_t events = (readable ? EPOLLIN : 0u) | (writable ? EPOLLOUT : 0u);
  auto it = r->sockets_.find(fd);
  if (events == 0) {
    if (it != r->sockets_.end()) {
      r->loop_->Remove(fd);
      r->sockets_.erase(it);
    }
    return;
  }
  if (it == r->sockets_.end()) {
    if (r->loop_->Add(fd, events, r).ok()) r->sockets_[fd] = events;
  } else {
    r->loop_->Modify(fd, events, r);
    it->second = events;
  }
}

void Resolver::Answered(void* arg, int status, int /*timeouts*/, struct ares_addrinfo* result) {
  std::unique_ptr<Pending> pending(static_cast<Pending*>(arg));
  StatusOr<std::vector<IpAddress>> answer = NotFound("no address for the host");
  if (status == ARES_SUCCESS) {
    std::vector<IpAddress> addresses = AddressesOf(result);
    if (!addresses.empty()) answer = std::move(addresses);
  } else if (status == ARES_EDESTRUCTION) {
    if (result != nullptr) ares_freeaddrinfo(result);
    return;
  } else if (status != ARES_ENOTFOUND && status != ARES_ENODATA) {
    answer = Unavailable(ares_strerror(status));
  }
  if (result != nullptr) ares_freeaddrinfo(result);
  Resolver* self = pending->resolver;
  if (self->in_resolve_) {
    self->deferred_.push_back([done = std::move(pending->done), answer]() { done(answer); });
    return;
  }
  pending->done(std::move(answer));
}

void Resolver::RunDeferred() {
  std::vector<std::function<void()>> ready;
  ready.swap(deferred_);
  for (auto& run : ready) run();
}

void Resolver::SetOverride(std::string_view text) {
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    line = line.substr(0, line.find('#'));
    std::optional<IpAddress> address;
    for (size_t at = 0; at < line.size();) {
      const size_t start = line.find_first_not_of(" \t\r", at);
      if (start == std::string_view::npos) break;
      const size_t end = std::min(line.find_first_of(" \t\r", start), line.size());
      const std::string_view word = line.substr(start, end - start);
      if (!address) {
        address = ParseIpAddress(word);
        if (!address) break;
      } else if (auto name = NormalizeHostName(word)) {
        override_[*name].push_back(*address);
      }
      at = end;
    }
  }
}

void Resolver::Resolve(const std::string& name, Done done) {
  if (auto it = override_.find(name); it != override_.end()) {
    std::vector<IpAddress> addresses = it->second;
    deferred_.push_back([done = std::move(done), addresses]() { done(addresses); });
    return;
  }
  struct ares_addrinfo_hints hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  in_resolve_ = true;
  ares_getaddrinfo(channel_, name.c_str(), nullptr, &hints, &Resolver::Answered,
                   new Pending{std::move(done), this});
  in_resolve_ = false;
}

int Resolver::TimeoutMs() {
  if (!deferred_.empty()) return 0;
  struct timeval tv = {};
  if (ares_timeout(channel_, nullptr, &tv) == nullptr) return -1;
  return static_cast<int>(tv.tv_sec * 1000 + tv.tv_usec / 1000) + 1;
}

void Resolver::OnTimeout() { ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD); }

void Resolver::OnEvents(int fd, uint32_t events) {
  const bool readable = events & (EPOLLIN | EPOLLHUP | EPOLLERR);
  const bool writable = events & EPOLLOUT;
  ares_process_fd(channel_, readable ? fd : ARES_SOCKET_BAD, writable ? fd : ARES_SOCKET_BAD);
}

}  // namespace agentbox::egress
