// The host side of a sandbox's egress: starting its proxy (egress/proxy_main.h), opening an
// exec's listener inside the sandbox's network namespace, and the exec's control connection.
//
// Why a listener in the sandbox's own namespace: the command reaches 127.0.0.1:PORT of its own
// loopback, and that socket is the proxy's, held on the host side. No host port exists that the
// command could reach, no process of the sandbox relays anything, and UDP or any other address
// stays unroutable (the namespace has loopback only). Making the socket takes setns(2) into that
// namespace, done on a short-lived thread of its own so no other thread ever changes namespace.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "proto/exec_result.h"
#include "spec/sandbox_spec.h"
#include "sys/unique_fd.h"

namespace agentbox::egress {

// The port a `run` sandbox's listener has: its network namespace is new, so nothing holds it.
// A persistent sandbox's execs each get a free port of their own.
inline constexpr uint16_t kRunProxyPort = 3128;

// How the proxy reaches the sandbox's egress relay (agent/egress_relay.h), when it has one.
struct RelayAccess {
  int dir_fd = -1;          // gVisor: an O_PATH fd of the dir of the relay's socket
  std::string tcp_address;  // kubernetes: the pod's agent, "tcp:HOST:PORT" (egress/relay_dial.h)
  std::string token;        // with tcp_address: the sandbox's agent token
};

// Starts `agentbox egress-proxy` for `spec` with `control` as its fd 3 (listening: a persistent
// sandbox's socket; else one end of a socketpair), `watch_pidfd` as fd 4 (-1: none) and, for a
// relay, relay.dir_fd as fd 5 or (TCP) a pipe holding relay.token as fd 5, its stderr to
// `log_path` ("" : /dev/null). Returns its pid.
StatusOr<pid_t> StartEgressProxy(const SandboxSpec& spec, int control, bool listening,
                                 int watch_pidfd, const RelayAccess& relay,
                                 const std::string& log_path);

// A TCP socket listening on 127.0.0.1:port (0: any free port) in the calling thread's network
// namespace (sys/netns.h puts a thread in the sandbox's).
StatusOr<UniqueFd> ListenOnLoopback(uint16_t port);
// The same in the network namespace of `netns_fd` (an open /proc/PID/ns/net), with that
// namespace's loopback up.
StatusOr<UniqueFd> ListenInNamespace(int netns_fd, uint16_t port);

// One exec's egress: its listener handed to the proxy, the report taken back at the end.
class ExecChannel {
 public:
  // Over `control` (a connected SOCK_SEQPACKET to the proxy): "open" with the listener.
  static StatusOr<ExecChannel> Open(UniqueFd control, UniqueFd listener);
  // Connects to a persistent sandbox's proxy at `socket_path` and opens a listener of any free
  // port in the namespace of the sandbox's PID 1 (`init_pid`, `init_start_time`).
  static StatusOr<ExecChannel> OpenForSandbox(const std::string& socket_path, pid_t init_pid,
                                              uint64_t init_start_time);
  // Under gVisor: asks the sandbox's egress relay at `relay_path` for a listener of the exec's
  // own (agent/egress_relay.h) and hands its owning connection to the proxy ("relay ID"). On
  // kubernetes `relay_path` is the pod's agent, "tcp:HOST:PORT", said hello to with `token`.
  static StatusOr<ExecChannel> OpenRelayed(const std::string& socket_path,
                                           const std::string& relay_path,
                                           const std::string& token = "");
  uint16_t port() const { return port_; }
  // Hands the listener to the proxy for good ("background"): it serves the sandbox's background
  // processes (exec -d) until the proxy ends. The channel is spent.
  Status KeepForBackground();
  // "finish", then the exec's report (what the proxy saw; egress true with no connections when
  // it cannot answer within a few seconds).
  NetworkReport Finish();

 private:
  UniqueFd control_;
  uint16_t port_ = 0;
};

}  // namespace agentbox::egress
