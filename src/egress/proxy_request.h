// The first bytes a client sends the egress proxy, parsed: an HTTP proxy request (CONNECT
// host:port, or a plain request with an absolute http:// URI) or a SOCKS5 exchange. And the TLS
// ClientHello's server name, checked against the CONNECT target.
//
// Pure and incremental: each parser is handed everything received so far and answers "need more"
// (nullopt), a refusal (kInvalidArgument with a one-line reason the client is told), or the
// request. A head is at most kMaxRequestHead bytes; past that the request is refused, so a client
// cannot make the proxy buffer without end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox::egress {

inline constexpr size_t kMaxRequestHead = 16 * 1024;

// Where the client wants to go: a normalized name, or an IP literal (address set).
struct Target {
  std::string host;  // a name (lowercase) or the address as written canonically
  bool is_address = false;
  uint16_t port = 0;
};

enum class ProxyProtocol { kHttpConnect, kHttpPlain, kSocks5 };

struct ProxyRequest {
  ProxyProtocol protocol = ProxyProtocol::kHttpConnect;
  Target target;
  // kHttpPlain: the head to send upstream (origin-form request line, Proxy-* and hop-by-hop
  // headers dropped, "Connection: close" added), then `consumed` marks where the body starts.
  std::string upstream_head;
  size_t consumed = 0;  // bytes of the input this request used
};

// A host[:port] or [v6]:port authority, or the host of a URI; `default_port` when none is given.
StatusOr<Target> ParseAuthority(std::string_view authority, uint16_t default_port);

// HTTP/1.x: nullopt until the head's blank line has arrived.
StatusOr<std::optional<ProxyRequest>> ParseHttpProxyRequest(std::string_view input);

// SOCKS5 (RFC 1928) in two steps. The greeting: nullopt for more, else how many bytes it used;
// the proxy answers {5, 0} (no authentication) when offered, {5, 0xff} (refused) when not.
struct Socks5Greeting {
  size_t consumed = 0;
  bool no_auth_offered = false;
};
StatusOr<std::optional<Socks5Greeting>> ParseSocks5Greeting(std::string_view input);
// The request after the greeting: CONNECT only (BIND and UDP ASSOCIATE are refused: UDP stays
// impossible). `reply_code` on a refusal is what to answer (RFC 1928 §6).
StatusOr<std::optional<ProxyRequest>> ParseSocks5Request(std::string_view input,
                                                         uint8_t* reply_code);
// The 10-byte reply {5, code, 0, 1, 0.0.0.0, port 0}.
std::string Socks5Reply(uint8_t code);

// The server name of a TLS ClientHello at the start of `input`. Answers nullopt for "need more";
// "" when `input` is not a TLS handshake or the hello carries no server name (nothing to check);
// else the name, lowercased. A hello longer than kMaxRequestHead is refused.
StatusOr<std::optional<std::string>> ParseTlsServerName(std::string_view input);

}  // namespace agentbox::egress
