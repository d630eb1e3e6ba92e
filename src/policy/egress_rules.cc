#include "policy/egress_rules.h"

namespace agentbox {
namespace {

bool PortMatches(const HostPattern& p, uint16_t port) { return p.port == 0 || p.port == port; }

bool InPrefix(const IpAddress& a, const IpAddress& network, int prefix) {
  if (a.v6 != network.v6) return false;
  for (int bit = 0; bit < prefix; ++bit) {
    const uint8_t mask = static_cast<uint8_t>(0x80 >> (bit % 8));
    if ((a.bytes[bit / 8] & mask) != (network.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

bool InRange(const IpAddress& a, const char* network, int prefix) {
  auto net = ParseIpAddress(network);
  return net && InPrefix(a, *net, prefix);
}

AddressClass ClassifyV4(const IpAddress& a) {
  if (InRange(a, "127.0.0.0", 8)) return AddressClass::kLoopback;
  if (InRange(a, "169.254.169.254", 32) || InRange(a, "100.100.100.200", 32)) {
    return AddressClass::kMetadata;
  }
  if (InRange(a, "169.254.0.0", 16)) return AddressClass::kLinkLocal;
  if (InRange(a, "0.0.0.0", 8)) return AddressClass::kUnspecified;
  if (InRange(a, "224.0.0.0", 4) || InRange(a, "255.255.255.255", 32)) {
    return AddressClass::kMulticast;
  }
  return AddressClass::kOrdinary;
}

AddressClass ClassifyV6(const IpAddress& a) {
  if (InRange(a, "::1", 128)) return AddressClass::kLoopback;
  if (InRange(a, "::", 128)) return AddressClass::kUnspecified;
  if (InRange(a, "fd00:ec2::254", 128)) return AddressClass::kMetadata;
  if (InRange(a, "fe80::", 10)) return AddressClass::kLinkLocal;
  if (InRange(a, "ff00::", 8)) return AddressClass::kMulticast;
  // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 forms could smuggle an IPv4 loopback or
  // metadata address past the checks above: read their last four bytes as IPv4.
  if (InRange(a, "::", 96) || InRange(a, "64:ff9b::", 96)) {
    IpAddress v4;
    for (int i = 0; i < 4; ++i) v4.bytes[i] = a.bytes[12 + i];
    return ClassifyV4(v4);
  }
  return AddressClass::kOrdinary;
}

}  // namespace

const char* AddressClassName(AddressClass cls) {
  switch (cls) {
    case AddressClass::kOrdinary:
      return "an ordinary address";
    case AddressClass::kLoopback:
      return "loopback";
    case AddressClass::kLinkLocal:
      return "link-local";
    case AddressClass::kMetadata:
      return "the cloud metadata address";
    case AddressClass::kUnspecified:
      return "the unspecified address";
    case AddressClass::kMulticast:
      return "multicast or broadcast";
    case AddressClass::kHostOwn:
      return "the host's own address";
  }
  return "?";
}

AddressClass ClassifyAddress(const IpAddress& address,
                             const std::vector<IpAddress>& host_addresses) {
  const IpAddress a = address.Canonical();
  AddressClass cls = a.v6 ? ClassifyV6(a) : ClassifyV4(a);
  if (cls != AddressClass::kOrdinary) return cls;
  for (const IpAddress& own : host_addresses) {
    if (own.Canonical() == a) return AddressClass::kHostOwn;
  }
  return AddressClass::kOrdinary;
}

StatusOr<EgressRules> EgressRules::FromPatterns(const std::vector<std::string>& patterns) {
  EgressRules rules;
  for (const std::string& text : patterns) {
    AB_ASSIGN_OR_RETURN(HostPattern p, ParseHostPattern(text));
    rules.patterns_.push_back(std::move(p));
  }
  return rules;
}

bool EgressRules::AllowsName(const std::string& name, uint16_t port) const {
  for (const HostPattern& p : patterns_) {
    if (!PortMatches(p, port)) continue;
    if (p.kind == HostPattern::Kind::kName && p.name == name) return true;
    if (p.kind == HostPattern::Kind::kWildcard && name.size() > p.name.size() + 1 &&
        name.ends_with(p.name) && name[name.size() - p.name.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

bool EgressRules::AllowsAddressLiteral(const IpAddress& address, uint16_t port) const {
  const IpAddress a = address.Canonical();
  for (const HostPattern& p : patterns_) {
    if (p.kind == HostPattern::Kind::kAddress && PortMatches(p, port) &&
        InPrefix(a, p.address, p.prefix)) {
      return true;
    }
  }
  return false;
}

std::optional<AddressClass> EgressRules::RefusedClass(
    const IpAddress& address, uint16_t port, const std::vector<IpAddress>& host_addresses) const {
  const AddressClass cls = ClassifyAddress(address, host_addresses);
  if (cls == AddressClass::kOrdinary) return std::nullopt;
  const IpAddress a = address.Canonical();
  for (const HostPattern& p : patterns_) {
    if (p.NamesOneAddress() && PortMatches(p, port) && p.address == a) return std::nullopt;
  }
  return cls;
}

}  // namespace agentbox
