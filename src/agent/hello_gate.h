// The TCP agent's gate (proto/agent_hello.h): PID 1 holds each accepted TCP connection here
// until its hello arrives, reading it without ever blocking, and hands on only the connections
// whose token matched. A wrong token is answered permission_denied and closed; a connection
// that stays silent past kHelloTimeoutSeconds, sends something else first or goes away is
// closed unanswered. At most kMaxPendingHellos wait at once (the oldest goes when another
// comes): connections that never speak cannot pin the agent or use up its fds.
#pragma once

#include <poll.h>

#include <ctime>
#include <string>
#include <vector>

#include "proto/agent_hello.h"
#include "sys/unique_fd.h"

namespace agentbox {

inline constexpr size_t kMaxPendingHellos = 64;

class HelloGate {
 public:
  // egress_relay: the sandbox has an egress relay, so a hello for it (HelloTarget::kEgressRelay)
  // is accepted; without one it is answered unavailable and closed.
  // token_by_claim (--token-by-claim, `token` empty): every hello is refused until a first claim
  // hello (HelloTarget::kClaim) sets the token; the gate then works as with that token, and
  // every later claim hello is refused. The claim's connection is closed after its answer.
  explicit HelloGate(std::string token, bool egress_relay = false, bool token_by_claim = false)
      : token_(std::move(token)), egress_relay_(egress_relay), unclaimed_(token_by_claim) {}

  // With token_by_claim: whether a claim hello set the token yet.
  bool claimed() const { return !unclaimed_; }

  // An accepted connection (blocking or not: every read here is MSG_DONTWAIT), accepted at
  // `now` (seconds of a monotonic clock, MonotonicSeconds()).
  void Add(UniqueFd conn, time_t now);

  // The waiting connections, for poll(POLLIN), and PID 1's fds a forked handler closes.
  std::vector<int> fds() const;

  // fd (one of fds()) is readable: reads what arrived of its hello. Returns the connection once
  // its hello was accepted and answered ok (it then carries one ordinary request, or for
  // *target kEgressRelay the relay's protocol); else an invalid fd (still waiting, or refused
  // and closed).
  UniqueFd OnReadable(int fd, HelloTarget* target);

  // Closes the connections whose hello is overdue at `now`.
  void Expire(time_t now);

  static time_t MonotonicSeconds();

 private:
  struct Pending {
    UniqueFd conn;
    time_t deadline;
    std::string frame;  // the bytes read so far: header, then payload
  };
  // True while the hello may still complete; false: drop it. *done once all of it is read.
  static bool ReadSome(Pending& p, bool* done);
  bool Verify(const Pending& p, HelloTarget* target);
  void Claim(const Pending& p, const std::string& token);

  std::string token_;
  bool egress_relay_;
  bool unclaimed_;  // --token-by-claim and no claim yet: token_ is empty and opens nothing
  std::vector<Pending> pending_;
};

}  // namespace agentbox
