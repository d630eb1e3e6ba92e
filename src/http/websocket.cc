#include "http/websocket.h"

#include <nettle/sha1.h>

#include <algorithm>

#include "base/ascii.h"
#include "base/base64.h"
#include "base/utf8.h"

namespace agentbox::ws {
namespace {

constexpr std::string_view kAcceptGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr size_t kMaxControlPayload = 125;  // §5.5
constexpr size_t kMaxCloseReason = kMaxControlPayload - 2;

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// True when `token` is one of the comma-separated, case-insensitive tokens of `list`
// (repeated headers arrive joined with ", ", so this covers them too).
bool ListHasToken(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (AsciiLower(TrimBlanks(list.substr(0, comma))) == token) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

// §4.1: the key is 16 random bytes, base64-encoded. Nettle's decoder skips whitespace and
// ignores stray trailing bits, so the key must also be exactly what re-encoding gives back.
bool IsValidKey(std::string_view key) {
  std::optional<std::string> raw = Base64Decode(key);
  return raw && raw->size() == 16;
}

bool IsKnownOpcode(uint8_t op) { return op <= 2 || (op >= 8 && op <= 10); }
bool IsControl(Opcode op) { return static_cast<uint8_t>(op) >= 8; }

// §7.4: codes an endpoint may put on the wire. 1004 is reserved, 1005/1006/1015 only ever
// describe a close locally; 1012-1014 are registered since (IANA); 3000-4999 are for
// libraries and applications.
bool IsValidCloseCode(uint16_t code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
         (code >= 3000 && code <= 4999);
}

uint64_t ReadBigEndian(std::string_view bytes) {
  uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

void AppendBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// §5.2: the smallest length form that holds the payload (the RFC requires the minimal one).
std::string FrameHead(bool fin, Opcode opcode, uint64_t length, bool masked) {
  std::string head;
  head.push_back(static_cast<char>((fin ? 0x80 : 0) | static_cast<uint8_t>(opcode)));
  const uint8_t mask_bit = masked ? 0x80 : 0;
  if (length < 126) {
    head.push_back(static_cast<char>(mask_bit | length));
  } else if (length <= 0xFFFF) {
    head.push_back(static_cast<char>(mask_bit | 126));
    AppendBigEndian(&head, length, 2);
  } else {
    head.push_back(static_cast<char>(mask_bit | 127));
    AppendBigEndian(&head, length, 8);
  }
  return head;
}

}  // namespace

std::string AcceptKey(std::string_view client_key) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, client_key.size(), Bytes(client_key));
  sha1_update(&ctx, kAcceptGuid.size(), Bytes(kAcceptGuid));
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, sizeof(digest), digest);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

Status CheckUpgrade(const std::function<std::string(std::string_view)>& header) {
  if (!ListHasToken(header("upgrade"), "websocket")) {
    return InvalidArgument("websocket upgrade: Upgrade header is not \"websocket\"");
  }
  if (!ListHasToken(header("connection"), "upgrade")) {
    return InvalidArgument("websocket upgrade: Connection header does not list \"upgrade\"");
  }
  if (std::string version = header("sec-websocket-version"); version != "13") {
    return InvalidArgument("websocket upgrade: Sec-WebSocket-Version is \"" + version +
                           "\", only 13 is supported");
  }
  if (!IsValidKey(header("sec-websocket-key"))) {
    return InvalidArgument(
        "websocket upgrade: Sec-WebSocket-Key is not 16 bytes in base64 (RFC 6455 4.1)");
  }
  return OkStatus();
}

int UpgradeRefusalStatus(const std::function<std::string(std::string_view)>& header) {
  if (!ListHasToken(header("upgrade"), "websocket")) return 426;
  if (header("sec-websocket-version") != "13") return 426;
  return 400;
}

std::string UpgradeResponse(std::string_view client_key) {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Accept: " +
         AcceptKey(client_key) + "\r\n\r\n";
}

Status FrameParser::Feed(std::string_view bytes, std::vector<Message>* out) {
  if (failed()) return failure_;
  buffer_.append(bytes);
  size_t consumed = 0;
  Status status;
  for (;;) {
    size_t used = 0;
    status = TakeFrame(std::string_view(buffer_).substr(consumed), &used, out);
    if (!status.ok() || used == 0) break;
    consumed += used;
  }
  // One erase per Feed, not per frame: many small frames in one read stay linear.
  buffer_.erase(0, consumed);
  if (!status.ok()) {
    failure_ = status;
    buffer_.clear();
    message_.clear();
  }
  return status;
}

// Takes one frame off the front of `in` when it is whole (*used = its size), else leaves
// *used at 0. Whatever can be refused is refused as soon as the bytes that show it are in.
Status FrameParser::TakeFrame(std::string_view in, size_t* used, std::vector<Message>* out) {
  if (in.size() < 2) return OkStatus();
  const auto b0 = static_cast<uint8_t>(in[0]);
  const auto b1 = static_cast<uint8_t>(in[1]);
  AB_RETURN_IF_ERROR(CheckFrameStart(b0, b1));
  const auto opcode = static_cast<Opcode>(b0 & 0x0F);
  const uint8_t length7 = b1 & 0x7F;
  const size_t extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
  if (in.size() < 2 + extended) return OkStatus();
  const uint64_t length = extended == 0 ? length7 : ReadBigEndian(in.substr(2, extended));
  if (length >> 63) return Fail(kCloseProtocolError, "64-bit frame length with the top bit set");
  // message_ is empty unless this is a continuation, so this bounds the whole message.
  if (!IsControl(opcode) && length > max_message_bytes_ - message_.size()) {
    return Fail(kCloseTooBig,
                "message longer than " + std::to_string(max_message_bytes_) + " bytes");
  }
  const size_t head = 2 + extended + 4;
  if (in.size() < head || in.size() - head < length) return OkStatus();
  std::string_view mask = in.substr(head - 4, 4);
  std::string payload(in.substr(head, length));
  for (size_t i = 0; i < payload.size(); ++i)
    payload[i] = static_cast<char>(payload[i] ^ mask[i % 4]);
  *used = head + length;
  return Deliver((b0 & 0x80) != 0, opcode, std::move(payload), out);
}

// The checks the first two bytes allow (§5.2, §5.4, §5.5).
Status FrameParser::CheckFrameStart(uint8_t b0, uint8_t b1) {
  const bool fin = (b0 & 0x80) != 0;
  const uint8_t op = b0 & 0x0F;
  if (b0 & 0x70) return Fail(kCloseProtocolError, "RSV bits set without an extension");
  if (!IsKnownOpcode(op)) return Fail(kCloseProtocolError, "unknown opcode " + std::to_string(op));
  // §5.1, §10.3: the client's mask keeps a script from choosing the bytes a proxy sees.
  if (!(b1 & 0x80)) return Fail(kCloseProtocolError, "unmasked client frame");
  const auto opcode = static_cast<Opcode>(op);
  if (IsControl(opcode)) {
    if (!fin) return Fail(kCloseProtocolError, "fragmented control frame");
    if ((b1 & 0x7F) > kMaxControlPayload) {
      return Fail(kCloseProtocolError, "control frame longer than 125 bytes");
    }
    return OkStatus();
  }
  if (opcode == Opcode::kContinuation && !in_message_) {
    return Fail(kCloseProtocolError, "continuation frame without a message to continue");
  }
  if (opcode != Opcode::kContinuation && in_message_) {
    return Fail(kCloseProtocolError, "new data frame inside a fragmented message");
  }
  return OkStatus();
}

Status FrameParser::Deliver(bool fin, Opcode opcode, std::string payload,
                            std::vector<Message>* out) {
  if (opcode == Opcode::kClose && !payload.empty()) {  // §5.5.1, §7.1.5
    if (payload.size() == 1) return Fail(kCloseProtocolError, "close payload of 1 byte");
    const auto code = static_cast<uint16_t>(ReadBigEndian(std::string_view(payload).substr(0, 2)));
    if (!IsValidCloseCode(code)) {
      return Fail(kCloseProtocolError, "invalid close code " + std::to_string(code));
    }
    if (!IsValidUtf8(std::string_view(payload).substr(2))) {
      return Fail(kCloseInvalidPayload, "close reason is not valid UTF-8");
    }
  }
  if (IsControl(opcode)) {
    out->push_back({opcode, std::move(payload)});
    return OkStatus();
  }
  if (opcode != Opcode::kContinuation) {
    in_message_ = true;
    message_opcode_ = opcode;
  }
  message_ += payload;
  if (!fin) return OkStatus();
  in_message_ = false;
  // §8.1: text is checked whole, since a code point may be split across fragments.
  if (message_opcode_ == Opcode::kText && !IsValidUtf8(message_)) {
    return Fail(kCloseInvalidPayload, "text message is not valid UTF-8");
  }
  out->push_back({message_opcode_, std::move(message_)});
  message_.clear();
  return OkStatus();
}

Status FrameParser::Fail(uint16_t close_code, std::string_view what) {
  close_code_ = close_code;
  return InvalidArgument("websocket frame: " + std::string(what));
}

std::string EncodeFrame(Opcode opcode, std::string_view payload) {
  std::string frame = FrameHead(true, opcode, payload.size(), false);
  frame.append(payload);
  return frame;
}

std::string EncodeClose(uint16_t code, std::string_view reason) {
  size_t cut = std::min(reason.size(), kMaxCloseReason);
  // Back off continuation bytes (10xxxxxx) so the cut never splits a character.
  if (cut < reason.size()) {
    while (cut > 0 && (static_cast<uint8_t>(reason[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string payload;
  AppendBigEndian(&payload, code, 2);
  payload.append(reason.substr(0, cut));
  return EncodeFrame(Opcode::kClose, payload);
}

std::string EncodeClientFrame(Opcode opcode, std::string_view payload, uint32_t mask, bool fin) {
  std::string frame = FrameHead(fin, opcode, payload.size(), true);
  AppendBigEndian(&frame, mask, 4);
  const size_t key = frame.size() - 4;
  for (size_t i = 0; i < payload.size(); ++i)
    frame.push_back(static_cast<char>(payload[i] ^ frame[key + i % 4]));
  return frame;
}

}  // namespace agentbox::ws
