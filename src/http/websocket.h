// RFC 6455 WebSocket, server side: the upgrade handshake and the frame codec that
// `agentbox serve` uses for its terminal stream (GET /v1/sandboxes/{id}/exec/tty).
//
// Pure functions over bytes, like http_message.h: the parser faces untrusted clients, so it is
// unit-tested and fuzzed without sockets. It is strict where the RFC says "MUST fail the
// connection" and bounded before it buffers: a frame header announcing a message larger than
// the limit is refused from its length alone, so a client cannot make the server hold 2^63 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox::ws {

// Close codes (RFC 6455 §7.4.1) the server sends.
inline constexpr uint16_t kCloseNormal = 1000;
inline constexpr uint16_t kCloseGoingAway = 1001;       // server shutting down
inline constexpr uint16_t kCloseProtocolError = 1002;   // a frame the RFC forbids
inline constexpr uint16_t kCloseInvalidPayload = 1007;  // text that is not UTF-8
inline constexpr uint16_t kClosePolicyViolation = 1008;
inline constexpr uint16_t kCloseTooBig = 1009;  // a message past max_message_bytes
inline constexpr uint16_t kCloseInternalError = 1011;
inline constexpr uint16_t kCloseTryAgainLater = 1013;  // busy or unavailable now (IANA registry)

// RFC 6455 §4.2.2: base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")).
std::string AcceptKey(std::string_view client_key);

// The upgrade request's checks (§4.2.1) on a GET: `Upgrade: websocket` (case-insensitive token),
// `Connection` listing `upgrade` among comma-separated tokens, `Sec-WebSocket-Version: 13`,
// `Sec-WebSocket-Key` that base64-decodes to exactly 16 bytes. kInvalidArgument naming what is
// wrong. `header` looks a header up by lower-case name ("" when absent).
// (On a wrong version §4.4 wants 426 with `Sec-WebSocket-Version: 13`; that is the handler's
// answer to give, the message names the version.)
Status CheckUpgrade(const std::function<std::string(std::string_view)>& header);

// The HTTP status for a request CheckUpgrade refused: 426 Upgrade Required when it asks for no
// WebSocket or for another version (the answer then carries `Upgrade: websocket` and
// `Sec-WebSocket-Version: 13`, §4.4, RFC 9110 §15.5.22), 400 when its upgrade is malformed.
int UpgradeRefusalStatus(const std::function<std::string(std::string_view)>& header);

// The 101 answer's bytes, ending in the blank line. No subprotocol and no extension is agreed,
// so the client must not set RSV bits (the parser refuses them).
std::string UpgradeResponse(std::string_view client_key);

enum class Opcode : uint8_t {
  kContinuation = 0,
  kText = 1,
  kBinary = 2,
  kClose = 8,
  kPing = 9,
  kPong = 10
};

// Whole data messages (fragments joined) or one control frame.
struct Message {
  Opcode opcode;
  std::string payload;
};

// Server side: client frames must be masked (§5.1). Incremental: bytes can arrive split anywhere.
class FrameParser {
 public:
  explicit FrameParser(size_t max_message_bytes) : max_message_bytes_(max_message_bytes) {}

  // Appends every complete message to *out, in order; control frames come out as soon as they
  // are whole, even between the fragments of a data message (§5.4). Errors (kInvalidArgument,
  // one line) on: an unmasked frame, RSV bits set, an unknown opcode, a control frame longer than
  // 125 bytes or fragmented, a continuation without a start or a new data frame inside a
  // fragmented message, a message longer than max_message_bytes (checked from the header's
  // length, before buffering it), a 64-bit length with the top bit set, a text message that is
  // not valid UTF-8, a close payload of 1 byte or with an invalid code (or a reason that is not
  // UTF-8). Messages completed before the bad frame are still appended. After an error the
  // parser stays failed (every Feed returns the same error) and close_code() is the code to send:
  // 1002 protocol, 1009 too big, 1007 bad UTF-8.
  Status Feed(std::string_view bytes, std::vector<Message>* out);

  uint16_t close_code() const { return close_code_; }  // after an error; 0 before
  bool failed() const { return !failure_.ok(); }

 private:
  Status TakeFrame(std::string_view in, size_t* used, std::vector<Message>* out);
  Status CheckFrameStart(uint8_t b0, uint8_t b1);
  Status Deliver(bool fin, Opcode opcode, std::string payload, std::vector<Message>* out);
  Status Fail(uint16_t close_code, std::string_view what);

  size_t max_message_bytes_;
  std::string buffer_;       // bytes of the frame not yet complete
  bool in_message_ = false;  // a fragmented data message has started
  Opcode message_opcode_{};  // its opcode (text or binary)
  std::string message_;      // its fragments so far
  uint16_t close_code_ = 0;
  Status failure_;
};

// A server frame (unmasked, FIN set), payload any size (7-, 16- or 64-bit length).
std::string EncodeFrame(Opcode opcode, std::string_view payload);
// A close frame: the code (which must be one §7.4 lets an endpoint send, not 1005/1006/1015)
// and the reason cut to fit 123 bytes, on a UTF-8 boundary, since a control payload is at most
// 125 bytes and a client fails the connection on a reason that is not UTF-8.
std::string EncodeClose(uint16_t code, std::string_view reason);
// For tests and clients: a masked client frame (mask as 4 bytes, most significant first).
std::string EncodeClientFrame(Opcode opcode, std::string_view payload, uint32_t mask,
                              bool fin = true);

}  // namespace agentbox::ws
