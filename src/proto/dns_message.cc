#include "proto/dns_message.h"

namespace agentbox {
namespace {

constexpr size_t kHeaderBytes = 12;
constexpr size_t kMaxNameBytes = 255;  // RFC 1035 2.3.4, on the wire

uint16_t Read16(std::string_view m, size_t at) {
  return static_cast<uint16_t>((static_cast<uint8_t>(m[at]) << 8) |
                               static_cast<uint8_t>(m[at + 1]));
}

void AppendLabelByte(std::string& out, uint8_t c) {
  if (c >= 'A' && c <= 'Z') c = static_cast<uint8_t>(c - 'A' + 'a');
  if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
    out.push_back(static_cast<char>(c));
    return;
  }
  // RFC 4343 presentation form: every other byte as \DDD, so the text is printable.
  out.push_back('\\');
  out.push_back(static_cast<char>('0' + c / 100));
  out.push_back(static_cast<char>('0' + c / 10 % 10));
  out.push_back(static_cast<char>('0' + c % 10));
}

// The name at `at`; *end is just past it. Labels only: a compression pointer in a question
// (legal, never sent by a resolver) is refused rather than followed.
std::optional<std::string> ReadName(std::string_view m, size_t at, size_t* end) {
  std::string name;
  size_t wire = 0;
  while (at < m.size()) {
    const uint8_t len = static_cast<uint8_t>(m[at]);
    if (len == 0) {
      *end = at + 1;
      return name.empty() ? std::string(".") : name;
    }
    if (len > 63) return std::nullopt;  // a pointer (0xC0) or a reserved label type
    wire += 1u + len;
    if (wire + 1 > kMaxNameBytes || at + 1 + len > m.size()) return std::nullopt;
    if (!name.empty()) name.push_back('.');
    for (size_t i = 0; i < len; ++i) AppendLabelByte(name, static_cast<uint8_t>(m[at + 1 + i]));
    at += 1u + len;
  }
  return std::nullopt;
}

}  // namespace

std::optional<DnsQuery> ParseDnsQuery(std::string_view m) {
  if (m.size() < kHeaderBytes) return std::nullopt;
  const uint16_t flags = Read16(m, 2);
  const bool response = (flags & 0x8000) != 0;
  const unsigned opcode = (flags >> 11) & 0xF;
  if (response || opcode != 0 || Read16(m, 4) == 0) return std::nullopt;
  DnsQuery q;
  q.id = Read16(m, 0);
  size_t after_name = 0;
  auto name = ReadName(m, kHeaderBytes, &after_name);
  if (!name || after_name + 4 > m.size()) return std::nullopt;
  q.name = std::move(*name);
  q.qtype = Read16(m, after_name);
  q.question_end = after_name + 4;
  return q;
}

std::string DnsRefusedAnswer(std::string_view message, const DnsQuery& query) {
  std::string out(message.substr(0, query.question_end));
  const uint8_t rd = static_cast<uint8_t>(out[2]) & 0x01;
  out[2] = static_cast<char>(0x80 | rd);  // QR, opcode QUERY, not authoritative, RD as asked
  out[3] = 0x05;                          // RA 0, RCODE REFUSED
  out[4] = 0;                             // one question: the one echoed
  out[5] = 1;
  for (size_t i = 6; i < kHeaderBytes; ++i) out[i] = 0;  // no answers, authority, additional
  return out;
}

}  // namespace agentbox
