// The server name of a TLS ClientHello (RFC 8446 §4.1.2, RFC 6066 §3), read without decrypting
// anything: the hello is sent in the clear, possibly over several records.
#include <optional>
#include <string>

#include "egress/proxy_request.h"
#include "spec/host_pattern.h"

namespace agentbox::egress {
namespace {

constexpr uint8_t kHandshake = 22;
constexpr uint8_t kClientHello = 1;

// A cursor over bytes that fails, rather than reads past the end.
struct Reader {
  std::string_view data;
  size_t at = 0;
  bool ok = true;

  uint32_t Int(size_t bytes) {
    if (at + bytes > data.size()) {
      ok = false;
      return 0;
    }
    uint32_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v = v << 8 | static_cast<uint8_t>(data[at + i]);
    at += bytes;
    return v;
  }
  std::string_view Bytes(size_t n) {
    if (at + n > data.size()) {
      ok = false;
      return {};
    }
    std::string_view v = data.substr(at, n);
    at += n;
    return v;
  }
  // A vector with a `len_bytes` length prefix.
  std::string_view Vector(size_t len_bytes) { return Bytes(Int(len_bytes)); }
};

enum class Hello { kNeedMore, kNotTls, kComplete };

// The handshake bytes of the records at the start of `input` into *handshake, once the whole
// ClientHello is there.
StatusOr<Hello> Reassemble(std::string_view input, std::string* handshake) {
  size_t at = 0;
  for (;;) {
    if (handshake->size() >= 4) {
      const size_t want =
          4 + (static_cast<uint8_t>((*handshake)[1]) << 16 |
               static_cast<uint8_t>((*handshake)[2]) << 8 | static_cast<uint8_t>((*handshake)[3]));
      if (want > kMaxRequestHead) return InvalidArgument("TLS ClientHello over 16 KiB");
      if (handshake->size() >= want) {
        handshake->resize(want);
        return Hello::kComplete;
      }
    }
    if (input.size() - at < 5) break;
    if (static_cast<uint8_t>(input[at]) != kHandshake) return Hello::kNotTls;
    const size_t len =
        static_cast<uint8_t>(input[at + 3]) << 8 | static_cast<uint8_t>(input[at + 4]);
    if (len == 0) return InvalidArgument("empty TLS record");
    if (input.size() - at - 5 < len) break;
    handshake->append(input.substr(at + 5, len));
    at += 5 + len;
  }
  if (input.size() >= kMaxRequestHead) return InvalidArgument("TLS ClientHello over 16 KiB");
  return Hello::kNeedMore;
}

StatusOr<std::string> ServerNameOf(std::string_view hello) {
  Reader r{hello};
  if (r.Int(1) != kClientHello) return InvalidArgument("TLS handshake that is not a ClientHello");
  r.Int(3);
  r.Int(2);     // legacy_version
  r.Bytes(32);  // random
  r.Vector(1);  // legacy_session_id
  r.Vector(2);  // cipher_suites
  r.Vector(1);  // legacy_compression_methods
  if (!r.ok) return InvalidArgument("truncated TLS ClientHello");
  if (r.at == hello.size()) return std::string();  // no extensions at all
  Reader ext{r.Vector(2)};
  if (!r.ok) return InvalidArgument("truncated TLS extensions");
  while (ext.ok && ext.at < ext.data.size()) {
    const uint32_t type = ext.Int(2);
    Reader body{ext.Vector(2)};
    if (!ext.ok) break;
    if (type != 0) continue;  // server_name
    Reader list{body.Vector(2)};
    while (body.ok && list.ok && list.at < list.data.size()) {
      const uint32_t name_type = list.Int(1);
      std::string_view name = list.Vector(2);
      if (!list.ok || name_type != 0) continue;  // host_name only
      auto normalized = NormalizeHostName(name);
      if (!normalized) return InvalidArgument("TLS server name that is not a host name");
      return *normalized;
    }
    return InvalidArgument("malformed TLS server_name extension");
  }
  if (!ext.ok) return InvalidArgument("truncated TLS extensions");
  return std::string();
}

}  // namespace

StatusOr<std::optional<std::string>> ParseTlsServerName(std::string_view input) {
  if (input.empty()) return std::optional<std::string>();
  if (static_cast<uint8_t>(input[0]) != kHandshake) return std::optional<std::string>("");
  std::string hello;
  AB_ASSIGN_OR_RETURN(Hello state, Reassemble(input, &hello));
  if (state == Hello::kNeedMore) return std::optional<std::string>();
  if (state == Hello::kNotTls) return std::optional<std::string>("");
  AB_ASSIGN_OR_RETURN(std::string name, ServerNameOf(hello));
  return std::optional<std::string>(std::move(name));
}

}  // namespace agentbox::egress
