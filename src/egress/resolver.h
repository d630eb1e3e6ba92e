// Resolver: names to addresses for the egress proxy, asynchronously on its event loop (c-ares):
// /etc/hosts first, then the nameservers of /etc/resolv.conf. The sandbox has no resolver of its
// own; the proxy resolves every name it is asked for, then checks each address. A hosts file
// given as an override (the tests' names, egress/proxy_main.h) is read before all of them.
#pragma once

#include <ares.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "egress/event_loop.h"
#include "spec/host_pattern.h"

namespace agentbox::egress {

class Resolver : public EventHandler {
 public:
  using Done = std::function<void(StatusOr<std::vector<IpAddress>>)>;

  explicit Resolver(EventLoop* loop) : loop_(loop) {}
  ~Resolver() override;
  Status Init();
  // Lines "ADDRESS NAME..." (a hosts file's text) answered before anything else.
  void SetOverride(std::string_view hosts_text);
  // `done` runs later, from the loop (never from inside Resolve), exactly once, unless the
  // Resolver is destroyed first.
  void Resolve(const std::string& name, Done done);
  // How long the loop may sleep before OnTimeout is due; -1 when nothing is pending, 0 when an
  // answer is waiting for RunDeferred.
  int TimeoutMs();
  // Delivers answers that came inside Resolve (from /etc/hosts): their callers were not ready.
  void RunDeferred();
  void OnTimeout();
  void OnEvents(int fd, uint32_t events) override;

 private:
  static void SocketState(void* self, ares_socket_t fd, int readable, int writable);
  static void Answered(void* arg, int status, int timeouts, struct ares_addrinfo* result);

  EventLoop* loop_;
  ares_channel channel_ = nullptr;
  std::map<int, uint32_t> sockets_;  // the channel's sockets and the events each waits for
  std::map<std::string, std::vector<IpAddress>> override_;
  bool in_resolve_ = false;
  std::vector<std::function<void()>> deferred_;
};

}  // namespace agentbox::egress
