#include "egress/proxy_request.h"

#include <vector>

#include "spec/host_pattern.h"

namespace agentbox::egress {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool IsTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

StatusOr<uint16_t> ParsePort(std::string_view text) {
  if (text.empty() || text.size() > 5)
    return InvalidArgument("bad port \"" + std::string(text) + "\"");
  uint32_t port = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return InvalidArgument("bad port \"" + std::string(text) + "\"");
    port = port * 10 + static_cast<uint32_t>(c - '0');
  }
  if (port == 0 || port > 65535) return InvalidArgument("bad port \"" + std::string(text) + "\"");
  return static_cast<uint16_t>(port);
}

StatusOr<Target> TargetOfHost(std::string_view host, uint16_t port) {
  Target t;
  t.port = port;
  if (auto address = ParseIpAddress(host)) {
    t.is_address = true;
    t.host = FormatIpAddress(address->Canonical());
    return t;
  }
  auto name = NormalizeHostName(host);
  if (!name) return InvalidArgument("\"" + std::string(host) + "\" is not a host name or address");
  t.host = *name;
  return t;
}

struct Header {
  std::string_view name, value;
};

struct Head {
  std::string_view method, target, version;
  std::vector<Header> headers;
};

StatusOr<Head> SplitHead(std::string_view head) {
  Head h;
  size_t eol = head.find("\r\n");
  std::string_view line = head.substr(0, eol);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1) return InvalidArgument("malformed request line");
  h.method = line.substr(0, sp1);
  h.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  h.version = line.substr(sp2 + 1);
  if (h.version != "HTTP/1.1" && h.version != "HTTP/1.0") {
    return InvalidArgument("not an HTTP/1.x request");
  }
  for (char c : h.method) {
    if (!IsTokenChar(c)) return InvalidArgument("malformed method");
  }
  if (h.target.empty() || h.target.find(' ') != std::string_view::npos) {
    return InvalidArgument("malformed request target");
  }
  while (eol + 2 < head.size()) {
    const size_t start = eol + 2;
    eol = head.find("\r\n", start);
    line = head.substr(start, eol - start);
    if (line.empty()) break;
    const size_t colon = line.find(':');
    // No folded lines, no name without a colon, no whitespace before the colon (RFC 9112 §5):
    // each is a way two parsers disagree about a header.
    if (colon == std::string_view::npos || colon == 0) return InvalidArgument("malformed header");
    for (char c : line.substr(0, colon)) {
      if (!IsTokenChar(c)) return InvalidArgument("malformed header name");
    }
    h.headers.push_back({line.substr(0, colon), Trim(line.substr(colon + 1))});
  }
  return h;
}

// The one Host header, or "" when none; two are refused.
StatusOr<std::string_view> HostHeader(const Head& head) {
  std::optional<std::string_view> host;
  for (const Header& header : head.headers) {
    if (Lower(header.name) != "host") continue;
    if (host) return InvalidArgument("two Host headers");
    host = header.value;
  }
  return host.value_or(std::string_view());
}

bool IsHopByHop(std::string_view name) {
  const std::string n = Lower(name);
  return n == "connection" || n == "keep-alive" || n == "proxy-connection" ||
         n == "proxy-authorization" || n == "proxy-authenticate" || n == "upgrade" || n == "te" ||
         n == "trailer";
}

Status CheckHostHeader(std::string_view host_header, const Target& target, uint16_t default_port) {
  if (host_header.empty()) return OkStatus();
  AB_ASSIGN_OR_RETURN(Target named, ParseAuthority(host_header, default_port));
  if (named.host != target.host || named.port != target.port) {
    return InvalidArgument("the Host header names " + named.host + ":" +
                           std::to_string(named.port) + ", not the request's " + target.host + ":" +
                           std::to_string(target.port));
  }
  return OkStatus();
}

StatusOr<ProxyRequest> PlainRequest(const Head& head, std::string_view host_header) {
  ProxyRequest r;
  r.protocol = ProxyProtocol::kHttpPlain;
  std::string_view path = "/";
  constexpr std::string_view kHttp = "http://";
  if (Lower(head.target.substr(0, kHttp.size())) == kHttp) {
    std::string_view rest = head.target.substr(kHttp.size());
    const size_t slash = rest.find_first_of("/?");
    std::string_view authority = rest.substr(0, slash);
    if (authority.find('@') != std::string_view::npos) {
      return InvalidArgument("credentials in the URI are refused");
    }
    AB_ASSIGN_OR_RETURN(r.target, ParseAuthority(authority, 80));
    if (slash != std::string_view::npos) path = rest.substr(slash);
    AB_RETURN_IF_ERROR(CheckHostHeader(host_header, r.target, 80));
  } else if (head.target[0] == '/' && !host_header.empty()) {
    AB_ASSIGN_OR_RETURN(r.target, ParseAuthority(host_header, 80));
    path = head.target;
  } else {
    return InvalidArgument("a plain request needs an http:// URI (https goes through CONNECT)");
  }
  std::string out = std::string(head.method) + " " + (path[0] == '?' ? "/" : "") +
                    std::string(path) + " " + std::string(head.version) + "\r\n";
  if (host_header.empty()) {
    out += "Host: " + (r.target.host.find(':') != std::string::npos ? "[" + r.target.host + "]"
                                                                    : r.target.host);
    if (r.target.port != 80) out += ":" + std::to_string(r.target.port);
    out += "\r\n";
  }
  for (const Header& header : head.headers) {
    if (IsHopByHop(header.name)) continue;
    out += std::string(header.name) + ": " + std::string(header.value) + "\r\n";
  }
  out += "Connection: close\r\n\r\n";
  r.upstream_head = std::move(out);
  return r;
}

}  // namespace

StatusOr<Target> ParseAuthority(std::string_view authority, uint16_t default_port) {
  std::string_view host = authority;
  uint16_t port = default_port;
  if (!authority.empty() && authority[0] == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return InvalidArgument("malformed authority");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return InvalidArgument("malformed authority");
      AB_ASSIGN_OR_RETURN(port, ParsePort(after.substr(1)));
    }
    if (!ParseIpAddress(host) || host.find(':') == std::string_view::npos) {
      return InvalidArgument("malformed authority");
    }
  } else {
    const size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      if (authority.find(':', colon + 1) != std::string_view::npos) {
        return InvalidArgument("an IPv6 address needs brackets");
      }
      host = authority.substr(0, colon);
      AB_ASSIGN_OR_RETURN(port, ParsePort(authority.substr(colon + 1)));
    }
  }
  if (port == 0) return InvalidArgument("no port in \"" + std::string(authority) + "\"");
  return TargetOfHost(host, port);
}

StatusOr<std::optional<ProxyRequest>> ParseHttpProxyRequest(std::string_view input) {
  const size_t end = input.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (input.size() >= kMaxRequestHead) return InvalidArgument("request head over 16 KiB");
    return std::optional<ProxyRequest>();
  }
  if (end + 4 > kMaxRequestHead) return InvalidArgument("request head over 16 KiB");
  AB_ASSIGN_OR_RETURN(Head head, SplitHead(input.substr(0, end + 2)));
  AB_ASSIGN_OR_RETURN(std::string_view host_header, HostHeader(head));
  ProxyRequest r;
  if (head.method == "CONNECT") {
    AB_ASSIGN_OR_RETURN(r.target, ParseAuthority(head.target, 0));
    AB_RETURN_IF_ERROR(CheckHostHeader(host_header, r.target, r.target.port));
  } else {
    AB_ASSIGN_OR_RETURN(r, PlainRequest(head, host_header));
  }
  r.consumed = end + 4;
  return std::optional<ProxyRequest>(std::move(r));
}

StatusOr<std::optional<Socks5Greeting>> ParseSocks5Greeting(std::string_view input) {
  if (input.empty()) return std::optional<Socks5Greeting>();
  if (static_cast<uint8_t>(input[0]) != 5) return InvalidArgument("not SOCKS5");
  if (input.size() < 2) return std::optional<Socks5Greeting>();
  const size_t n = static_cast<uint8_t>(input[1]);
  if (n == 0) return InvalidArgument("SOCKS5 greeting offers no method");
  if (input.size() < 2 + n) return std::optional<Socks5Greeting>();
  Socks5Greeting g;
  g.consumed = 2 + n;
  for (size_t i = 0; i < n; ++i) g.no_auth_offered |= input[2 + i] == 0;
  return std::optional<Socks5Greeting>(g);
}

StatusOr<std::optional<ProxyRequest>> ParseSocks5Request(std::string_view input,
                                                         uint8_t* reply_code) {
  *reply_code = 1;  // general failure
  if (input.size() < 5) return std::optional<ProxyRequest>();
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(input[i]); };
  if (byte(0) != 5 || byte(2) != 0) return InvalidArgument("malformed SOCKS5 request");
  size_t address_end = 0;
  switch (byte(3)) {
    case 1:
      address_end = 4 + 4;
      break;
    case 3:
      address_end = 5 + byte(4);
      break;
    case 4:
      address_end = 4 + 16;
      break;
    default:
      *reply_code = 8;
      return InvalidArgument("SOCKS5 address type " + std::to_string(byte(3)) + " unknown");
  }
  if (input.size() < address_end + 2) return std::optional<ProxyRequest>();
  if (byte(1) != 1) {
    *reply_code = 7;
    return InvalidArgument(byte(1) == 3 ? "SOCKS5 UDP ASSOCIATE refused: no UDP"
                                        : "SOCKS5 command " + std::to_string(byte(1)) +
                                              " refused: CONNECT only");
  }
  const uint16_t port = static_cast<uint16_t>(byte(address_end) << 8 | byte(address_end + 1));
  *reply_code = 2;  // connection not allowed by ruleset
  if (port == 0) return InvalidArgument("SOCKS5 port 0");
  ProxyRequest r;
  r.protocol = ProxyProtocol::kSocks5;
  if (byte(3) == 3) {
    AB_ASSIGN_OR_RETURN(r.target, TargetOfHost(input.substr(5, byte(4)), port));
  } else {
    IpAddress a;
    a.v6 = byte(3) == 4;
    for (size_t i = 0; i < (a.v6 ? 16u : 4u); ++i) a.bytes[i] = byte(4 + i);
    r.target.is_address = true;
    r.target.host = FormatIpAddress(a.Canonical());
    r.target.port = port;
  }
  r.consumed = address_end + 2;
  *reply_code = 0;
  return std::optional<ProxyRequest>(std::move(r));
}

std::string Socks5Reply(uint8_t code) {
  return std::string("\x05", 1) + static_cast<char>(code) +
         std::string("\x00\x01\x00\x00\x00\x00\x00\x00", 8);
}

}  // namespace agentbox::egress
