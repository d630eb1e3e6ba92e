// DNS messages as the sandbox's DNS catcher (proc/dns_catcher.h) reads and answers them: the
// question of a standard query, and the REFUSED answer every query gets. Pure: no sockets.
//
// A sandbox has no resolver: its resolv.conf names 127.0.0.1, where the catcher listens. A
// lookup there is the first sign a command tried the network on its own (without the proxy), so
// its name is recorded and the query answered REFUSED at once, never forwarded anywhere: the
// command fails fast, and its result says which host it wanted (proto/exec_result.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentbox {

// A DNS message's largest size over TCP (its 2-byte length prefix); UDP ones are smaller.
inline constexpr size_t kMaxDnsMessage = 65535;

struct DnsQuery {
  uint16_t id = 0;
  // The name asked for, in presentation form: labels joined by '.', lower case, each byte that
  // is not a letter, digit, '-' or '_' written \DDD (so it is always printable ASCII); "." for
  // the root.
  std::string name;
  uint16_t qtype = 0;
  size_t question_end = 0;  // the offset just past the question (name, type, class)
};

// The first question of a standard query (QR 0, opcode QUERY, at least one question), or
// nullopt for anything else: a response, another opcode, a truncated or malformed message, a
// compressed name in the question. Never reads past `message`.
std::optional<DnsQuery> ParseDnsQuery(std::string_view message);

// The answer to `query` (parsed from `message`): the same id and question, QR set, RD copied,
// RCODE 5 (REFUSED), no records.
std::string DnsRefusedAnswer(std::string_view message, const DnsQuery& query);

}  // namespace agentbox
