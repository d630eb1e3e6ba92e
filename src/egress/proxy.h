// Proxy: the egress proxy of one sandbox, run as a process of its own on the host
// (`agentbox egress-proxy`, egress/proxy_main.h): HTTP CONNECT, plain HTTP and SOCKS5 (CONNECT)
// on listening sockets that live in the sandbox's network namespace, one per exec.
//
// One thread, one epoll loop (egress/event_loop.h), names resolved asynchronously on it
// (egress/resolver.h): a connection costs two fds and, while it relays, two 64 KiB buffers; an
// exec holds at most ProxyLimits::connections_per_exec at once and moves at most
// bytes_per_exec, so the proxy's memory and threads are bounded whatever the commands do.
//
// The control protocol (SOCK_SEQPACKET, one connection per exec, from the host side only):
//   -> "open" + one fd (SCM_RIGHTS): the exec's listening TCP socket; the proxy serves it.
//   -> "relay ID" + one fd: instead, under gVisor and on kubernetes, the connection owning the
//      exec's listener ID on the sandbox's egress relay (agent/egress_relay.h); the proxy parks
//      connections on it (proto/relay_wire.h) and serves each client the relay gives it.
//   -> "background" (after "open" or "relay"): the sandbox's listener for background processes
//      (exec -d): the proxy serves it until the proxy ends, whatever the control connection
//      does; no report is kept for anyone (a denial is only in the proxy's log).
//   -> "finish": the proxy closes the listener and every connection of the exec and answers
//   <- the exec's NetworkReport as JSON (proto/exec_result.h), then closes.
// A control connection that hangs up ends its exec the same way, without an answer. A proxy with
// a connected control socket (`run`) exits when it hangs up; one with a listening control socket
// (a persistent sandbox) exits when `watch_fd` (a pidfd of the sandbox's PID 1) says it ended,
// or on kubernetes when the relay drops its background listener (SetRelayTcp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "egress/event_loop.h"
#include "egress/resolver.h"
#include "policy/egress_rules.h"
#include "sys/unique_fd.h"

namespace agentbox::egress {

struct ProxyLimits {
  uint64_t connections_per_exec = 64;
  uint64_t bytes_per_exec = 1ull << 30;
};
// Execs served at once (control connections); more are refused at accept.
inline constexpr size_t kMaxExecs = 256;
inline constexpr size_t kRelayBufferBytes = 64 * 1024;

class Connection;
struct ExecEntry;

class Proxy : public EventHandler {
 public:
  Proxy(EgressRules rules, ProxyLimits limits);
  ~Proxy() override;

  Status Run(UniqueFd control, bool control_listens, int watch_fd);
  // Names answered before /etc/hosts and DNS (Resolver::SetOverride); call before Run.
  void SetHostsOverride(std::string_view hosts_text) { resolver_.SetOverride(hosts_text); }
  // The sandbox's egress relay is `relay_dir`'s proto/agent_protocol.h kEgressRelaySocketName
  // (an O_PATH fd of the dir, which becomes the proxy's cwd: it names no other path, and a
  // command cannot place a socket there: the host sealed the dir). Call before Run.
  Status SetRelayDir(int relay_dir);
  // Instead, on kubernetes: the relay is reached at the pod's agent, `address` ("tcp:HOST:PORT"),
  // with a hello carrying `token` (egress/relay_dial.h). There is no pidfd of a pod's PID 1 to
  // watch: the proxy ends when the background processes' listener (the sandbox's first, kept
  // for its life) loses its owning connection, i.e. when the pod or its relay is gone, and
  // always when the host kills it (rm, gc). Call before Run.
  void SetRelayTcp(std::string address, std::string token);
  bool relay_ready() const { return relay_ready_; }
  // A connection parked on relay listener `id` ("park ID" sent); invalid when the relay cannot
  // take one now.
  UniqueFd ConnectRelay(uint64_t id);
  // The background entry's relay listener closed: the sandbox's end, for a proxy that has no
  // pidfd to watch (SetRelayTcp).
  void OnBackgroundRelayGone();

  // For connections and execs (egress/proxy_connection.cc, proxy.cc).
  EventLoop& loop() { return loop_; }
  Resolver& resolver() { return resolver_; }
  const EgressRules& rules() const { return rules_; }
  const ProxyLimits& limits() const { return limits_; }
  // Deleted once the current batch of events is dispatched, never under its own call.
  void Retire(Connection* connection);
  void RetireExec(ExecEntry* exec);
  void Adopt(std::unique_ptr<Connection> connection);
  // The live connection of that id, or nullptr once it is closed.
  Connection* Find(uint64_t id) const;

  void OnEvents(int fd, uint32_t events) override;

 private:
  void AcceptControl();
  void CheckDeadlines();
  void FreeRetired();

  EgressRules rules_;
  ProxyLimits limits_;
  EventLoop loop_;
  Resolver resolver_{&loop_};
  UniqueFd control_;
  bool control_listens_ = false;
  int watch_fd_ = -1;
  bool relay_ready_ = false;
  std::string relay_tcp_;  // SetRelayTcp; "": the relay dir, if any
  std::string relay_token_;
  bool stop_ = false;
  std::map<Connection*, std::unique_ptr<Connection>> connections_;
  std::map<uint64_t, Connection*> by_id_;
  uint64_t next_id_ = 1;
  std::map<ExecEntry*, std::unique_ptr<ExecEntry>> execs_;
  std::vector<Connection*> retired_;
  std::vector<ExecEntry*> retired_execs_;
};

}  // namespace agentbox::egress
