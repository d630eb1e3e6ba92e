// DnsCatcher: the sandbox's resolver address, 127.0.0.1:53 (UDP and TCP), where nothing is
// resolved. Every query is answered REFUSED at once (proto/dns_message.h) and its name kept, so
// a command that tries the network on its own gets a fast failure and its result names the host
// it wanted ("denied by policy"), instead of a resolver timeout nobody can explain.
//
// Who holds one: `agentbox run`'s supervisor (native/run_network.h) for a run's namespace, the
// agent's PID 1 (agent/agent_server.cc) for a persistent sandbox's, on every backend; its
// resolv.conf names 127.0.0.1 (the native root's generated one, the docker backend's Dns).
// Bounded whatever a command sends: a few TCP clients at once (the oldest dropped), 16 messages
// per readable socket per call, 4 KiB per TCP query, the last kKeptNames names.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

class DnsCatcher {
 public:
  static constexpr size_t kKeptNames = 256;
  static constexpr size_t kMaxTcpClients = 8;

  // Binds 127.0.0.1:53 UDP and TCP in the calling thread's network namespace.
  static StatusOr<std::unique_ptr<DnsCatcher>> Open();

  // The fds to wait on for input; OnReadable(fd) when one is. Valid until the next call.
  std::vector<int> fds() const;
  void OnReadable(int fd);

  // How many names were caught so far (a mark for NamesSince).
  uint64_t caught() const { return caught_; }
  // The names caught after `mark`, each once, in the order first caught; *lost counts those
  // no longer kept (more than kKeptNames came since).
  std::vector<std::string> NamesSince(uint64_t mark, uint64_t* lost) const;

 private:
  struct TcpClient {
    UniqueFd fd;
    std::string data;
  };
  void ServeUdp();
  void AcceptTcp();
  void ReadTcp(size_t index);
  // The answer to a query; empty for a message that is none. Records the name.
  std::string Answer(std::string_view message);

  UniqueFd udp_, tcp_;
  std::vector<TcpClient> clients_;  // oldest first
  std::deque<std::string> names_;   // the last kKeptNames caught
  uint64_t caught_ = 0;
};

}  // namespace agentbox
