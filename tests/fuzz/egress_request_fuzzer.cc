// The egress proxy's parsers of what a sandboxed command sends it (src/egress/proxy_request.h):
// an HTTP proxy request head, SOCKS5, a TLS ClientHello's server name; and the allow_hosts
// pattern parser (src/spec/host_pattern.h); and what comes from inside the sandbox in the
// DNS catcher's query (src/proto/dns_message.h) and the egress relay's lines
// (src/proto/relay_wire.h). The first byte picks one (0xF0 and up: the last two). Beyond not
// crashing: a head answered from a prefix is answered the same from the whole input (the proxy
// parses what has arrived so far); a target's host is a normalized name or a canonical address; a
// pattern's canonical text parses back to itself and lies within itself; a server name is a
// normalized name.
#include "egress/proxy_request.h"
#include "fuzz_util.h"
#include "proto/dns_message.h"
#include "proto/relay_wire.h"
#include "spec/host_pattern.h"

using namespace agentbox;
using namespace agentbox::egress;

namespace {

void CheckTarget(const Target& t) {
  FUZZ_CHECK(t.port != 0, "a target without a port");
  if (t.is_address) {
    auto a = ParseIpAddress(t.host);
    FUZZ_CHECK(a && FormatIpAddress(*a) == t.host, "address not canonical: " + t.host);
  } else {
    FUZZ_CHECK(NormalizeHostName(t.host) == t.host, "name not normalized: " + t.host);
  }
}

void FuzzHttp(std::string_view input) {
  auto whole = ParseHttpProxyRequest(input);
  if (whole.ok() && *whole) {
    CheckTarget((*whole)->target);
    FUZZ_CHECK((*whole)->consumed <= input.size(), "consumed past the input");
    FUZZ_CHECK((*whole)->upstream_head.find("\r\n\r\n") + 4 == (*whole)->upstream_head.size() ||
                   (*whole)->protocol != ProxyProtocol::kHttpPlain,
               "upstream head not one head");
    auto again = ParseHttpProxyRequest(input.substr(0, (*whole)->consumed));
    FUZZ_CHECK(again.ok() && *again && (*again)->target.host == (*whole)->target.host,
               "the head alone parses differently");
  }
}

void FuzzSocks(std::string_view input) {
  auto greeting = ParseSocks5Greeting(input);
  if (!greeting.ok() || !*greeting) return;
  uint8_t code = 0;
  auto request = ParseSocks5Request(input.substr((*greeting)->consumed), &code);
  if (request.ok() && *request) {
    CheckTarget((*request)->target);
    FUZZ_CHECK(code == 0, "a request with a failure code");
  }
  FUZZ_CHECK(Socks5Reply(code).size() == 10, "reply not 10 bytes");
}

void FuzzTls(std::string_view input) {
  auto name = ParseTlsServerName(input);
  if (name.ok() && *name && !(*name)->empty()) {
    FUZZ_CHECK(NormalizeHostName(**name) == **name, "server name not normalized");
  }
}

void FuzzPattern(std::string_view input) {
  auto p = ParseHostPattern(input);
  if (!p.ok()) return;
  const std::string text = FormatHostPattern(*p);
  auto again = ParseHostPattern(text);
  FUZZ_CHECK(again.ok() && FormatHostPattern(*again) == text,
             "canonical form does not read back: " + text);
  FUZZ_CHECK(PatternWithin(*p, *p), "a pattern is not within itself: " + text);
}

// A question's name is printable ASCII; the answer echoes exactly the header and question.
void FuzzDns(std::string_view input) {
  auto q = ParseDnsQuery(input);
  if (!q) return;
  FUZZ_CHECK(!q->name.empty() && q->question_end <= input.size(), "question out of bounds");
  for (char c : q->name) FUZZ_CHECK(c > ' ' && c < 0x7f, "a name byte not printable");
  const std::string answer = DnsRefusedAnswer(input, *q);
  FUZZ_CHECK(answer.size() == q->question_end, "the answer is not the question's size");
  FUZZ_CHECK(answer.substr(12) == input.substr(12, q->question_end - 12), "question not echoed");
}

void FuzzRelay(std::string_view input) {
  if (auto r = ParseRelayRequest(input); r && r->kind == RelayRequest::Kind::kPark) {
    FUZZ_CHECK(RelayParkLine(r->id) == std::string(input) + "\n", "park line not canonical");
  }
  if (auto a = ParseRelayListenAnswer(input)) {
    FUZZ_CHECK(a->second != 0, "port 0 accepted");
    FUZZ_CHECK(RelayListenAnswer(a->first, a->second) == std::string(input) + "\n",
               "answer not canonical");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input = fuzz::AsText(data + 1, size - 1);
  if (data[0] >= 0xF0) {
    (data[0] < 0xF8 ? FuzzDns : FuzzRelay)(input);
    return 0;
  }
  switch (data[0] % 4) {
    case 0:
      FuzzHttp(input);
      break;
    case 1:
      FuzzSocks(input);
      break;
    case 2:
      FuzzTls(input);
      break;
    default:
      FuzzPattern(input);
  }
  return 0;
}
