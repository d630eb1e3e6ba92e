// The egress relay's protocol (agent/egress_relay.h), between the host and the relay in a
// gVisor sandbox, on the relay's unix socket. Each connection opens with one line from the host:
//   "listen\n"   -> "ok ID PORT\n": a TCP listener on the sandbox's 127.0.0.1:PORT, named ID.
//                   This connection owns it: when it closes (or says anything more), the
//                   listener and every connection it accepted are closed.
//   "park ID\n"  -> nothing yet: the connection waits for a client of listener ID. When one
//                   connects, the relay writes "c" and from then on passes bytes both ways,
//                   each side's EOF passed on as a half close.
// Anything else (or an unknown ID) is closed at once. Pure: the lines, not the sockets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentbox {

inline constexpr size_t kMaxRelayLine = 64;
inline constexpr char kRelayClientByte = 'c';

struct RelayRequest {
  enum class Kind { kListen, kPark } kind = Kind::kListen;
  uint64_t id = 0;  // kPark
};

// One line without its '\n'; nullopt for anything malformed.
std::optional<RelayRequest> ParseRelayRequest(std::string_view line);
std::string RelayParkLine(uint64_t id);
std::string RelayListenAnswer(uint64_t id, uint16_t port);
// "ok ID PORT" without its '\n' -> {ID, PORT}; nullopt otherwise (PORT 0 too).
std::optional<std::pair<uint64_t, uint16_t>> ParseRelayListenAnswer(std::string_view line);

}  // namespace agentbox
