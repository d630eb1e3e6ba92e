// EgressRules: what the egress proxy may connect to, decided from `allow_hosts` alone.
//
// A connection is allowed only when the host the client asked for (a CONNECT target, a Host, a
// SOCKS5 name or address) matches a pattern with its port, AND the address the proxy would
// connect to is one it may reach: never loopback, link-local (with the cloud metadata addresses
// 169.254.169.254, fd00:ec2::254, 100.100.100.200), unspecified, multicast or broadcast, nor one
// of the host's own addresses, unless a pattern names that one address exactly (a range never
// opens them). So a name on the list that resolves to 127.0.0.1 (DNS rebinding) is refused, and
// a name not on the list is refused whatever it resolves to. Pure: the caller resolves names and
// lists the host's addresses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "spec/host_pattern.h"

namespace agentbox {

// What an address is, for the refusals above; kOrdinary for any other.
enum class AddressClass {
  kOrdinary,
  kLoopback,
  kLinkLocal,
  kMetadata,
  kUnspecified,
  kMulticast,  // and the IPv4 broadcast address
  kHostOwn,
};
const char* AddressClassName(AddressClass cls);  // "loopback", "the host's own address", ...

class EgressRules {
 public:
  // Each text must parse (the spec validated it); an error names the first that does not.
  static StatusOr<EgressRules> FromPatterns(const std::vector<std::string>& patterns);

  bool empty() const { return patterns_.empty(); }

  // A name (normalized) on the list with this port; an IP literal never matches a name pattern.
  bool AllowsName(const std::string& name, uint16_t port) const;
  // An address by itself (an IP literal request): in an address pattern's range, with its port.
  bool AllowsAddressLiteral(const IpAddress& address, uint16_t port) const;
  // May the proxy connect to `address` (for a request already allowed)? nullopt: yes; else the
  // class that refuses it (only a pattern naming exactly this address, with the port, opens one).
  std::optional<AddressClass> RefusedClass(const IpAddress& address, uint16_t port,
                                           const std::vector<IpAddress>& host_addresses) const;

 private:
  std::vector<HostPattern> patterns_;
};

// The class of `address` (mapped IPv4 read as IPv4), given the host's own addresses.
AddressClass ClassifyAddress(const IpAddress& address,
                             const std::vector<IpAddress>& host_addresses);

}  // namespace agentbox
