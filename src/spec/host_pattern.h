// HostPattern: one entry of `allow_hosts` (`--allow-host PATTERN`), parsed strictly.
//
//   host                  a DNS name, any port              pypi.org
//   host:port             that name, that port              index.internal:8080
//   *.domain[:port]       any name below domain (not it)    *.githubusercontent.com
//   IP[/prefix][:port]    an address or a range             192.0.2.7, 198.51.100.0/24:443
//   [IPv6][/prefix][:port]                                  [2001:db8::1]:443, [2001:db8::]/32
//
// Names are lowercased and lose a trailing dot; an IPv4 part with a leading zero ("010") is
// refused (some parsers read it as octal, so it would not name what it seems to). A bare IPv6
// address (no brackets) takes no port. IpAddress is also what the egress proxy resolves to, so the
// one parser here serves the policy and the proxy. Pure: no OS headers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox {

// An IPv4 or IPv6 address; an IPv4 one is held in bytes[0..3].
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};

  // ::ffff:a.b.c.d as a.b.c.d: one address must never be two, to a check.
  IpAddress Canonical() const;
  bool operator==(const IpAddress& other) const = default;
};

// "192.0.2.1", "2001:db8::1" (no brackets, no zone); nullopt for anything else.
std::optional<IpAddress> ParseIpAddress(std::string_view text);
// "192.0.2.1", "2001:db8::1" (RFC 5952's shortest form, IPv4-mapped as ::ffff:a.b.c.d).
std::string FormatIpAddress(const IpAddress& address);

// A DNS name as a client may ask for it: 1-253 characters of letters, digits, '-', '_' and dots
// in labels of 1-63; lowercased, a trailing dot dropped. nullopt when it is not one (an IP
// literal is not a name).
std::optional<std::string> NormalizeHostName(std::string_view text);

struct HostPattern {
  enum class Kind { kName, kWildcard, kAddress };
  Kind kind = Kind::kName;
  std::string name;   // kName: the name; kWildcard: the domain after "*."
  IpAddress address;  // kAddress: the network (host bits zero)
  int prefix = 0;     // kAddress: 0-32 or 0-128; the full length names one address
  uint16_t port = 0;  // 0: any port

  // One address, named exactly (no shorter prefix): what may open loopback, link-local,
  // metadata or the host's own address.
  bool NamesOneAddress() const {
    return kind == Kind::kAddress && prefix == (address.v6 ? 128 : 32);
  }
};

// kInvalidArgument saying what is wrong and what the syntaxes are.
StatusOr<HostPattern> ParseHostPattern(std::string_view text);
// The canonical text ParseHostPattern reads back to the same pattern.
std::string FormatHostPattern(const HostPattern& pattern);

// Everything `inner` allows, `outer` allows too (an operator's ceiling over a tenant's list):
// the same name, a name or wildcard below a wildcard's domain, a range inside a range; a port
// only under the same port or under any.
bool PatternWithin(const HostPattern& inner, const HostPattern& outer);

}  // namespace agentbox
