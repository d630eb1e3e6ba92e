// The proxy's parts, shared by proxy.cc (execs and control) and proxy_connection.cc (one client
// connection's state machine). Not for use outside egress/.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "egress/proxy.h"
#include "egress/proxy_request.h"
#include "proto/exec_result.h"

namespace agentbox::egress {

using Clock = std::chrono::steady_clock;

// One exec: its control connection, where its clients come from, its connections and what they
// did. Clients come from a listener in the sandbox's network namespace, or, for a sandbox whose
// network the host cannot enter (gVisor), through the sandbox's egress relay
// (agent/egress_relay.h): connections parked on the exec's relay listener, each turned into a
// client when the relay says one connected.
struct ExecEntry : public EventHandler {
  Proxy* proxy = nullptr;
  UniqueFd control;
  UniqueFd listener;
  UniqueFd relay_owner;  // the relay listener's owning connection; its hang-up: relay gone
  uint64_t relay_id = 0;
  std::map<int, UniqueFd> parked;
  NetworkReport report;
  uint64_t bytes = 0;  // both ways, every connection of the exec
  std::set<Connection*> connections;
  bool ended = false;
  bool background = false;  // serves the sandbox's background processes (exec -d)

  void OnEvents(int fd, uint32_t events) override;
  // An attempt's entry in the report; SIZE_MAX once kMaxNetworkConnections are kept.
  size_t Record(const Target& target, bool allowed, const std::string& reason);
  // Closes the listener and every connection; with `answer`, sends the report first.
  void End(bool answer);

 private:
  void AcceptClients();
  // A new client connection of the exec: served, or refused over egress_connections.
  void AdoptClient(UniqueFd client);
  void ReadControl();
  bool UseListener(UniqueFd fd);
  // Tops the parked connections up to kParkedPerExec.
  void Park();
  void OnParked(int fd, uint32_t events);
  void DropRelay();
  void KeepForBackground();
};

// Connections a relayed exec keeps parked on its relay listener: how many clients may arrive at
// once before the next has to wait for one more to be parked.
inline constexpr size_t kParkedPerExec = 4;

// A direction of a relay: bytes read from one side, not yet written to the other.
struct RelayBuffer {
  std::vector<char> data;
  size_t start = 0, end = 0;
  bool eof = false;        // the reading side said EOF
  bool shut_down = false;  // ...and the writing side was told (shutdown SHUT_WR)
  size_t pending() const { return end - start; }
  size_t room() const { return data.size() - end; }
};

class Connection : public EventHandler {
 public:
  Connection(Proxy* proxy, ExecEntry* exec, UniqueFd client);
  ~Connection() override;
  void Start();
  void OnEvents(int fd, uint32_t events) override;
  // Ends it: both sockets closed; `reason` is recorded when not empty.
  void Close(const std::string& reason);
  uint64_t id() const { return id_; }
  void set_id(uint64_t id) { id_ = id; }
  bool Expired(Clock::time_point now) const { return state_ != State::kRelay && deadline_ < now; }
  ExecEntry* exec() const { return exec_; }

 private:
  enum class State { kHead, kSocksRequest, kResolving, kConnecting, kRelay, kClosed };

  void ReadHead();
  void OnRequest(ProxyRequest request);
  void Deny(const std::string& reason);
  void Refuse(const std::string& reason);  // a malformed request: 400 / SOCKS failure
  void OnResolved(StatusOr<std::vector<IpAddress>> answer);
  void ConnectNext();
  void OnConnected();
  void StartRelay();
  void PumpRelay();
  bool InspectHello();
  void UpdateInterest();
  void Answer(const std::string& bytes);
  void CountBytes(uint64_t n, bool sent);

  Proxy* proxy_;
  ExecEntry* exec_;
  uint64_t id_ = 0;
  UniqueFd client_, upstream_;
  State state_ = State::kHead;
  Clock::time_point deadline_;
  std::string head_;  // what the client sent before the relay
  ProxyRequest request_;
  bool socks_ = false;
  uint8_t socks_reply_ = 1;
  std::vector<IpAddress> addresses_;
  size_t next_address_ = 0;
  std::string refused_;  // the first resolved address refused, and why
  size_t entry_ = SIZE_MAX;
  bool inspect_hello_ = false;
  RelayBuffer to_upstream_, to_client_;
  // The epoll events each side is registered for while relaying (UINT32_MAX: not yet set).
  uint32_t client_interest_ = UINT32_MAX, upstream_interest_ = UINT32_MAX;
};

}  // namespace agentbox::egress
