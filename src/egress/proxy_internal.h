// The proxy's parts, shared by proxy.cc (execs and control) and proxy_connection.cc (one client
// connection's state machine). Not for use outside egress/.
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "egress/proxy.h"
#include "egress/proxy_request.h"
#include "proto/exec_result.h"

namespace agentbox::egress {

using Clock = std::chrono::steady_clock;

// One exec: its control connection, its listener, its connections and what they did.
struct ExecEntry : public EventHandler {
  Proxy* proxy = nullptr;
  UniqueFd control;
  UniqueFd listener;
  NetworkReport report;
  uint64_t bytes = 0;  // both ways, every connection of the exec
  std::set<Connection*> connections;
  bool ended = false;

  void OnEvents(int fd, uint32_t events) override;
  // An attempt's entry in the report; SIZE_MAX once kMaxNetworkConnections are kept.
  size_t Record(const Target& target, bool allowed, const std::string& reason);
  // Closes the listener and every connection; with `answer`, sends the report first.
  void End(bool answer);

 private:
  void AcceptClients();
  void ReadControl();
};

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
