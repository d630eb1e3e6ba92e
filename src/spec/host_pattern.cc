#include "spec/host_pattern.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace agentbox {
namespace {

constexpr std::string_view kSyntaxes =
    "expected host, host:port, *.domain[:port], IP[/prefix][:port] or [IPv6][/prefix][:port]";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A decimal number of 1-`max_digits` digits, no sign, no leading zero unless it is "0".
std::optional<uint32_t> ParseDecimal(std::string_view text, size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  if (text.size() > 1 && text[0] == '0') return std::nullopt;
  uint32_t value = 0;
  for (char c : text) {
    if (!IsDigit(c)) return std::nullopt;
    value = value * 10 + static_cast<uint32_t>(c - '0');
  }
  return value;
}

bool ParseIpv4(std::string_view text, uint8_t* out) {
  for (int i = 0; i < 4; ++i) {
    const size_t dot = i < 3 ? text.find('.') : text.size();
    if (dot == std::string_view::npos) return false;
    auto part = ParseDecimal(text.substr(0, dot), 3);
    if (!part || *part > 255) return false;
    out[i] = static_cast<uint8_t>(*part);
    text = i < 3 ? text.substr(dot + 1) : std::string_view();
  }
  return true;
}

// The groups of one side of "::" (each 1-4 hex digits), into `groups`; a last part with dots is
// an IPv4 address worth two groups, allowed only where `allow_v4_tail`.
bool ParseGroups(std::string_view text, bool allow_v4_tail, std::vector<uint16_t>* groups) {
  if (text.empty()) return true;
  for (;;) {
    const size_t colon = text.find(':');
    const std::string_view part = text.substr(0, colon);
    if (colon == std::string_view::npos && allow_v4_tail &&
        part.find('.') != std::string_view::npos) {
      uint8_t v4[4];
      if (!ParseIpv4(part, v4)) return false;
      groups->push_back(static_cast<uint16_t>(v4[0] << 8 | v4[1]));
      groups->push_back(static_cast<uint16_t>(v4[2] << 8 | v4[3]));
      return true;
    }
    if (part.empty() || part.size() > 4) return false;
    uint16_t value = 0;
    for (char c : part) {
      const int h = HexValue(c);
      if (h < 0) return false;
      value = static_cast<uint16_t>(value << 4 | h);
    }
    groups->push_back(value);
    if (colon == std::string_view::npos) return true;
    text = text.substr(colon + 1);
  }
}

bool ParseIpv6(std::string_view text, uint8_t* out) {
  std::vector<uint16_t> head, tail;
  const size_t gap = text.find("::");
  if (gap == std::string_view::npos) {
    if (!ParseGroups(text, true, &head) || head.size() != 8) return false;
  } else {
    if (text.find("::", gap + 1) != std::string_view::npos) return false;
    if (!ParseGroups(text.substr(0, gap), false, &head) ||
        !ParseGroups(text.substr(gap + 2), true, &tail) || head.size() + tail.size() > 7) {
      return false;
    }
  }
  std::vector<uint16_t> all(8, 0);
  for (size_t i = 0; i < head.size(); ++i) all[i] = head[i];
  for (size_t i = 0; i < tail.size(); ++i) all[8 - tail.size() + i] = tail[i];
  for (size_t i = 0; i < 8; ++i) {
    out[2 * i] = static_cast<uint8_t>(all[i] >> 8);
    out[2 * i + 1] = static_cast<uint8_t>(all[i] & 0xff);
  }
  return true;
}

bool IsMappedV4(const IpAddress& a) {
  if (!a.v6) return false;
  for (int i = 0; i < 10; ++i) {
    if (a.bytes[i] != 0) return false;
  }
  return a.bytes[10] == 0xff && a.bytes[11] == 0xff;
}

std::string FormatV6(const IpAddress& a) {
  uint16_t g[8];
  for (int i = 0; i < 8; ++i)
    g[i] = static_cast<uint16_t>(a.bytes[2 * i] << 8 | a.bytes[2 * i + 1]);
  int best = -1, best_len = 1;  // RFC 5952: only a run of two or more groups is shortened
  for (int i = 0; i < 8;) {
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len) best = i, best_len = j - i;
    i = j == i ? i + 1 : j;
  }
  std::string out;
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    std::snprintf(buf, sizeof(buf), "%x", g[i]);
    out += buf;
  }
  return out;
}

// Zeroes the bits past `prefix`; false when any was set (192.0.2.1/24 is a typo, not a range).
bool IsNetwork(IpAddress& a, int prefix) {
  const int bits = a.v6 ? 128 : 32;
  bool clean = true;
  for (int bit = prefix; bit < bits; ++bit) {
    const uint8_t mask = static_cast<uint8_t>(0x80 >> (bit % 8));
    if (a.bytes[bit / 8] & mask) clean = false;
    a.bytes[bit / 8] &= static_cast<uint8_t>(~mask);
  }
  return clean;
}

Status Bad(std::string_view text, std::string_view why) {
  return InvalidArgument("\"" + std::string(text) + "\": " + std::string(why) + " (" +
                         std::string(kSyntaxes) + ")");
}

// "ADDR[/prefix]" into the pattern.
Status ParseAddressPart(std::string_view whole, std::string_view part, HostPattern* p) {
  const size_t slash = part.find('/');
  auto address = ParseIpAddress(part.substr(0, slash));
  if (!address) return Bad(whole, "not an IP address");
  p->kind = HostPattern::Kind::kAddress;
  p->address = address->Canonical();
  const int bits = p->address.v6 ? 128 : 32;
  p->prefix = bits;
  if (slash != std::string_view::npos) {
    auto prefix = ParseDecimal(part.substr(slash + 1), 3);
    if (!prefix || static_cast<int>(*prefix) > bits) return Bad(whole, "bad prefix length");
    p->prefix = static_cast<int>(*prefix);
    // A mapped address's prefix counts the 96 bits before the IPv4 part.
    if (address->v6 && !p->address.v6) p->prefix = std::max(0, p->prefix - 96);
  }
  if (!IsNetwork(p->address, p->prefix)) return Bad(whole, "address bits set past the prefix");
  return OkStatus();
}

Status ParsePort(std::string_view whole, std::string_view text, HostPattern* p) {
  auto port = ParseDecimal(text, 5);
  if (!port || *port == 0 || *port > 65535) return Bad(whole, "port must be 1-65535");
  p->port = static_cast<uint16_t>(*port);
  return OkStatus();
}

}  // namespace

IpAddress IpAddress::Canonical() const {
  if (!IsMappedV4(*this)) return *this;
  IpAddress v4;
  for (int i = 0; i < 4; ++i) v4.bytes[i] = bytes[12 + i];
  return v4;
}

std::optional<IpAddress> ParseIpAddress(std::string_view text) {
  IpAddress a;
  if (text.find(':') != std::string_view::npos) {
    a.v6 = true;
    if (!ParseIpv6(text, a.bytes.data())) return std::nullopt;
    return a;
  }
  if (!ParseIpv4(text, a.bytes.data())) return std::nullopt;
  return a;
}

std::string FormatIpAddress(const IpAddress& a) {
  if (IsMappedV4(a)) return "::ffff:" + FormatIpAddress(a.Canonical());
  if (a.v6) return FormatV6(a);
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%u.%u.%u.%u", a.bytes[0], a.bytes[1], a.bytes[2], a.bytes[3]);
  return buf;
}

std::optional<std::string> NormalizeHostName(std::string_view text) {
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  if (text.empty() || text.size() > 253 || ParseIpAddress(text)) return std::nullopt;
  std::string name;
  size_t label = 0;
  for (char c : text) {
    if (c == '.') {
      // A label is not empty and neither starts nor ends with '-' (RFC 1123).
      if (label == 0 || name.back() == '-') return std::nullopt;
      label = 0;
    } else if (c == '-' && label == 0) {
      return std::nullopt;
    } else if (IsDigit(c) || IsLower(c) || IsUpper(c) || c == '-' || c == '_') {
      if (++label > 63) return std::nullopt;
    } else {
      return std::nullopt;
    }
    name += IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
  }
  // A last label of digits only ("1.2.3", "0x7f.0.0.1"): no top-level domain is one, and
  // inet_aton-style parsers read such names as addresses.
  const std::string last =
      name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
  if (label == 0 || name.back() == '-' ||
      last.find_first_not_of("0123456789") == std::string::npos) {
    return std::nullopt;
  }
  return name;
}

StatusOr<HostPattern> ParseHostPattern(std::string_view text) {
  HostPattern p;
  if (text.empty()) return Bad(text, "empty");
  std::string_view host = text;
  std::string_view port;
  if (text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return Bad(text, "no closing ']'");
    host = text.substr(1, close - 1);
    std::string_view after = text.substr(close + 1);
    if (!after.empty() && after[0] == '/') {  // [2001:db8::]/32
      const size_t colon = after.find(':');
      std::string joined(host);
      joined += after.substr(0, colon);
      AB_RETURN_IF_ERROR(ParseAddressPart(text, joined, &p));
      after = colon == std::string_view::npos ? std::string_view() : after.substr(colon);
    } else {
      AB_RETURN_IF_ERROR(ParseAddressPart(text, host, &p));
    }
    if (!p.address.v6 && host.find(':') == std::string_view::npos) {
      return Bad(text, "brackets are for IPv6 addresses");
    }
    if (!after.empty()) {
      if (after[0] != ':') return Bad(text, "unexpected text after ']'");
      AB_RETURN_IF_ERROR(ParsePort(text, after.substr(1), &p));
    }
    return p;
  }
  // Two colons or more: a bare IPv6 address (or range), which takes no port.
  if (text.find(':') != text.rfind(':')) {
    AB_RETURN_IF_ERROR(ParseAddressPart(text, text, &p));
    return p;
  }
  const size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    AB_RETURN_IF_ERROR(ParsePort(text, port, &p));
  }
  const uint16_t parsed_port = p.port;
  if (host.find('/') != std::string_view::npos || ParseIpAddress(host)) {
    AB_RETURN_IF_ERROR(ParseAddressPart(text, host, &p));
    p.port = parsed_port;
    return p;
  }
  if (host.starts_with("*.")) {
    p.kind = HostPattern::Kind::kWildcard;
    host.remove_prefix(2);
  } else if (host.find('*') != std::string_view::npos) {
    return Bad(text, "'*' only as a whole first label, as in *.example.com");
  }
  auto name = NormalizeHostName(host);
  if (!name) return Bad(text, "not a host name");
  if (p.kind == HostPattern::Kind::kWildcard && name->find('.') == std::string::npos) {
    return Bad(text, "a wildcard needs a domain of two labels at least, as in *.example.com");
  }
  p.name = *name;
  return p;
}

bool PatternWithin(const HostPattern& inner, const HostPattern& outer) {
  if (outer.port != 0 && inner.port != outer.port) return false;
  using Kind = HostPattern::Kind;
  if (outer.kind == Kind::kAddress || inner.kind == Kind::kAddress) {
    if (outer.kind != inner.kind || outer.address.v6 != inner.address.v6 ||
        inner.prefix < outer.prefix) {
      return false;
    }
    IpAddress network = inner.address;
    IsNetwork(network, outer.prefix);
    return network == outer.address;
  }
  if (outer.kind == Kind::kName) return inner.kind == Kind::kName && inner.name == outer.name;
  // Below "*.d": a name "x.d", or a wildcard "*.d" / "*.x.d".
  if (inner.kind == Kind::kWildcard && inner.name == outer.name) return true;
  return inner.name.size() > outer.name.size() && inner.name.ends_with(outer.name) &&
         inner.name[inner.name.size() - outer.name.size() - 1] == '.';
}

std::string FormatHostPattern(const HostPattern& p) {
  std::string host;
  switch (p.kind) {
    case HostPattern::Kind::kName:
      host = p.name;
      break;
    case HostPattern::Kind::kWildcard:
      host = "*." + p.name;
      break;
    case HostPattern::Kind::kAddress:
      host = FormatIpAddress(p.address);
      if (!p.NamesOneAddress()) host += "/" + std::to_string(p.prefix);
      if (p.address.v6) host = "[" + host + "]";
      break;
  }
  if (p.port != 0) host += ":" + std::to_string(p.port);
  return host;
}

}  // namespace agentbox
