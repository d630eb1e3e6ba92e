#include "http/websocket.h"

#include <gtest/gtest.h>

#include <map>

namespace agentbox::ws {
namespace {

constexpr uint32_t kMask = 0x37FA213D;  // RFC 6455 §5.7's example mask

std::function<std::string(std::string_view)> Headers(std::map<std::string, std::string> h) {
  return [h = std::move(h)](std::string_view name) {
    auto it = h.find(std::string(name));
    return it == h.end() ? std::string() : it->second;
  };
}

std::map<std::string, std::string> GoodHeaders() {
  return {{"upgrade", "websocket"},
          {"connection", "Upgrade"},
          {"sec-websocket-version", "13"},
          {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="}};
}

struct Parsed {
  Status status;
  std::vector<Message> messages;
};

Parsed FeedWhole(std::string_view bytes, size_t max = 1 << 20) {
  FrameParser parser(max);
  Parsed p;
  p.status = parser.Feed(bytes, &p.messages);
  return p;
}

// Expects `bytes` to fail the parser with `close_code`, whether fed whole or byte by byte.
void ExpectRefused(std::string_view bytes, uint16_t close_code, size_t max = 1 << 20) {
  for (bool split : {false, true}) {
    FrameParser parser(max);
    std::vector<Message> out;
    Status status;
    if (split) {
      for (char c : bytes) {
        status = parser.Feed(std::string_view(&c, 1), &out);
        if (!status.ok()) break;
      }
    } else {
      status = parser.Feed(bytes, &out);
    }
    ASSERT_FALSE(status.ok()) << "split=" << split;
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message().find('\n'), std::string::npos);
    EXPECT_EQ(parser.close_code(), close_code) << status.message();
    // Stays failed, even on a good frame.
    EXPECT_FALSE(parser.Feed(EncodeClientFrame(Opcode::kText, "ok", kMask), &out).ok());
    EXPECT_TRUE(out.empty());
  }
}

TEST(WebSocketHandshakeTest, AcceptKeyOfRfcExample) {
  // RFC 6455 §1.3 (and §4.2.2).
  EXPECT_EQ(AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketHandshakeTest, UpgradeResponseBytes) {
  EXPECT_EQ(UpgradeResponse("dGhlIHNhbXBsZSBub25jZQ=="),
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
}

TEST(WebSocketHandshakeTest, AcceptsGoodUpgradeAndTokenLists) {
  EXPECT_TRUE(CheckUpgrade(Headers(GoodHeaders())).ok());
  auto h = GoodHeaders();
  h["upgrade"] = "WebSocket";
  h["connection"] = "keep-alive, UPGRADE";  // Firefox sends this
  EXPECT_TRUE(CheckUpgrade(Headers(h)).ok());
  h["connection"] = "keep-alive,\tupgrade ";
  EXPECT_TRUE(CheckUpgrade(Headers(h)).ok());
}

TEST(WebSocketHandshakeTest, RefusesEachMissingOrWrongHeader) {
  struct Case {
    std::string header, value, names;
  };
  const Case cases[] = {
      {"upgrade", "", "Upgrade"},
      {"upgrade", "h2c", "Upgrade"},
      {"upgrade", "websockets", "Upgrade"},
      {"connection", "", "Connection"},
      {"connection", "keep-alive", "Connection"},
      {"connection", "upgrader", "Connection"},
      {"sec-websocket-version", "", "Sec-WebSocket-Version"},
      {"sec-websocket-version", "8", "Sec-WebSocket-Version"},
      {"sec-websocket-version", "13, 8", "Sec-WebSocket-Version"},
      {"sec-websocket-key", "", "Sec-WebSocket-Key"},
      {"sec-websocket-key", "not base64!", "Sec-WebSocket-Key"},
      {"sec-websocket-key", "AAAAAAAAAAAAAAAAAAAA", "Sec-WebSocket-Key"},      // 15 bytes
      {"sec-websocket-key", "AAAAAAAAAAAAAAAAAAAAAAAA", "Sec-WebSocket-Key"},  // 18 bytes
      {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ", "Sec-WebSocket-Key"},    // no padding
      {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZR==", "Sec-WebSocket-Key"},  // stray bits
      {"sec-websocket-key", "dGhlIHNhbXBs ZSBub25jZQ==", "Sec-WebSocket-Key"},
  };
  for (const Case& c : cases) {
    auto h = GoodHeaders();
    if (c.value.empty()) {
      h.erase(c.header);
    } else {
      h[c.header] = c.value;
    }
    Status status = CheckUpgrade(Headers(h));
    ASSERT_FALSE(status.ok()) << c.header << ": " << c.value;
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find(c.names), std::string::npos) << status.message();
  }
}

TEST(WebSocketHandshakeTest, RefusalStatus426ForNoOrAnotherWebSocket) {
  auto h = GoodHeaders();
  h.erase("upgrade");
  EXPECT_EQ(UpgradeRefusalStatus(Headers(h)), 426);  // a plain GET
  h = GoodHeaders();
  h["sec-websocket-version"] = "8";
  EXPECT_EQ(UpgradeRefusalStatus(Headers(h)), 426);
  h = GoodHeaders();
  h["sec-websocket-key"] = "short";
  EXPECT_EQ(UpgradeRefusalStatus(Headers(h)), 400);
  h = GoodHeaders();
  h.erase("connection");
  EXPECT_EQ(UpgradeRefusalStatus(Headers(h)), 400);
}

TEST(WsFrameParserTest, MaskedTextFrameOfRfcExample) {
  // §5.7: a single-frame masked text message "Hello".
  const std::string frame = "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58";
  EXPECT_EQ(EncodeClientFrame(Opcode::kText, "Hello", kMask), frame);
  Parsed p = FeedWhole(frame);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  ASSERT_EQ(p.messages.size(), 1u);
  EXPECT_EQ(p.messages[0].opcode, Opcode::kText);
  EXPECT_EQ(p.messages[0].payload, "Hello");
}

TEST(WsFrameParserTest, FramesSplitByteByByte) {
  const std::string stream = EncodeClientFrame(Opcode::kBinary, std::string(300, '\x01'), kMask) +
                             EncodeClientFrame(Opcode::kText, "tty", 0) +
                             EncodeClientFrame(Opcode::kPing, "p", 0xFFFFFFFF);
  FrameParser parser(1024);
  std::vector<Message> out;
  for (size_t i = 0; i < stream.size(); ++i) {
    ASSERT_TRUE(parser.Feed(stream.substr(i, 1), &out).ok()) << "byte " << i;
  }
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].opcode, Opcode::kBinary);
  EXPECT_EQ(out[0].payload, std::string(300, '\x01'));
  EXPECT_EQ(out[1].payload, "tty");
  EXPECT_EQ(out[2].opcode, Opcode::kPing);
  EXPECT_EQ(out[2].payload, "p");
}

TEST(WsFrameParserTest, SevenSixteenAndSixtyFourBitLengths) {
  for (size_t size : {0, 1, 125, 126, 127, 65535, 65536, 70000}) {
    const std::string payload(size, 'x');
    const std::string server = EncodeFrame(Opcode::kBinary, payload);
    const size_t head = size < 126 ? 2 : size <= 65535 ? 4 : 10;
    ASSERT_EQ(server.size(), head + size) << size;
    EXPECT_EQ(static_cast<uint8_t>(server[0]), 0x82);
    EXPECT_EQ(static_cast<size_t>(static_cast<uint8_t>(server[1])), size < 126      ? size
                                                                    : size <= 65535 ? 126
                                                                                    : 127);

    const std::string client = EncodeClientFrame(Opcode::kBinary, payload, kMask);
    ASSERT_EQ(client.size(), head + 4 + size);
    EXPECT_EQ(static_cast<uint8_t>(client[1]) & 0x80, 0x80);
    Parsed p = FeedWhole(client);
    ASSERT_TRUE(p.status.ok()) << p.status.message();
    ASSERT_EQ(p.messages.size(), 1u);
    EXPECT_EQ(p.messages[0].payload, payload);
  }
}

TEST(WsFrameParserTest, FragmentsJoinedWithPingBetween) {
  const std::string stream = EncodeClientFrame(Opcode::kText, "he", kMask, false) +
                             EncodeClientFrame(Opcode::kPing, "still there?", kMask) +
                             EncodeClientFrame(Opcode::kContinuation, "l\xc3", kMask, false) +
                             EncodeClientFrame(Opcode::kContinuation, "", kMask, false) +
                             EncodeClientFrame(Opcode::kContinuation, "\xa9o", kMask);
  for (size_t step : {1, 3, 1000}) {
    FrameParser parser(64);
    std::vector<Message> out;
    for (size_t i = 0; i < stream.size(); i += step) {
      ASSERT_TRUE(parser.Feed(stream.substr(i, step), &out).ok());
    }
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].opcode, Opcode::kPing);  // control frames are not held back
    EXPECT_EQ(out[0].payload, "still there?");
    EXPECT_EQ(out[1].opcode, Opcode::kText);
    EXPECT_EQ(out[1].payload, "hel\xc3\xa9o");  // UTF-8 split across fragments is fine
  }
}

TEST(WsFrameParserTest, CloseFrames) {
  Parsed empty = FeedWhole(EncodeClientFrame(Opcode::kClose, "", kMask));
  ASSERT_TRUE(empty.status.ok());
  ASSERT_EQ(empty.messages.size(), 1u);
  EXPECT_EQ(empty.messages[0].opcode, Opcode::kClose);
  EXPECT_EQ(empty.messages[0].payload, "");
  Parsed bye = FeedWhole(EncodeClientFrame(Opcode::kClose, std::string("\x03\xe8") + "bye", kMask));
  ASSERT_TRUE(bye.status.ok());
  ASSERT_EQ(bye.messages.size(), 1u);
  EXPECT_EQ(bye.messages[0].payload,
            "\x03\xe8"
            "bye");
  for (uint16_t code : {1000, 1003, 1007, 1011, 1014, 3000, 4999}) {
    std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
    EXPECT_TRUE(FeedWhole(EncodeClientFrame(Opcode::kClose, payload, kMask)).status.ok()) << code;
  }
}

TEST(WsFrameParserTest, MessagesBeforeAnErrorAreKept) {
  FrameParser parser(64);
  std::vector<Message> out;
  Status status = parser.Feed(
      EncodeClientFrame(Opcode::kText, "first", kMask) + EncodeFrame(Opcode::kText, "unmasked"),
      &out);
  EXPECT_FALSE(status.ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, "first");
  EXPECT_TRUE(parser.failed());
}

TEST(WsFrameParserTest, ProtocolErrorsClose1002) {
  ExpectRefused(EncodeFrame(Opcode::kText, "unmasked"), kCloseProtocolError);
  for (char rsv : {'\x40', '\x20', '\x10'}) {
    std::string frame = EncodeClientFrame(Opcode::kText, "x", kMask);
    frame[0] = static_cast<char>(frame[0] | rsv);
    ExpectRefused(frame, kCloseProtocolError);
  }
  for (uint8_t op : {3, 7, 11, 15}) {
    std::string frame = EncodeClientFrame(Opcode::kBinary, "x", kMask);
    frame[0] = static_cast<char>(0x80 | op);
    ExpectRefused(frame, kCloseProtocolError);
  }
  ExpectRefused(EncodeClientFrame(Opcode::kPing, std::string(126, 'p'), kMask),
                kCloseProtocolError);
  ExpectRefused(EncodeClientFrame(Opcode::kPing, "p", kMask, false), kCloseProtocolError);
  ExpectRefused(EncodeClientFrame(Opcode::kContinuation, "x", kMask), kCloseProtocolError);
  ExpectRefused(EncodeClientFrame(Opcode::kText, "a", kMask, false) +
                    EncodeClientFrame(Opcode::kBinary, "b", kMask),
                kCloseProtocolError);
  ExpectRefused(EncodeClientFrame(Opcode::kClose, "\x03", kMask), kCloseProtocolError);
  for (uint16_t code : {0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535}) {
    std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
    ExpectRefused(EncodeClientFrame(Opcode::kClose, payload, kMask), kCloseProtocolError);
  }
  // A 64-bit length with the top bit set: refused from the header, before any payload.
  ExpectRefused(std::string("\x82\xff\x80\x00\x00\x00\x00\x00\x00\x00", 10), kCloseProtocolError,
                SIZE_MAX);
}

TEST(WsFrameParserTest, TooBigClose1009FromTheHeader) {
  // 2^62 bytes announced: refused on the header alone, with nothing buffered.
  ExpectRefused(std::string("\x82\xff\x40\x00\x00\x00\x00\x00\x00\x00", 10), kCloseTooBig);
  ExpectRefused(EncodeClientFrame(Opcode::kBinary, std::string(65, 'x'), kMask), kCloseTooBig, 64);
  // The limit is on the message: fragments that each fit but together do not.
  ExpectRefused(EncodeClientFrame(Opcode::kBinary, std::string(40, 'x'), kMask, false) +
                    EncodeClientFrame(Opcode::kContinuation, std::string(25, 'x'), kMask),
                kCloseTooBig, 64);
  EXPECT_TRUE(
      FeedWhole(EncodeClientFrame(Opcode::kBinary, std::string(64, 'x'), kMask), 64).status.ok());
}

TEST(WsFrameParserTest, BadUtf8Close1007) {
  ExpectRefused(EncodeClientFrame(Opcode::kText, "\xff", kMask), kCloseInvalidPayload);
  ExpectRefused(EncodeClientFrame(Opcode::kText, "\xed\xa0\x80", kMask), kCloseInvalidPayload);
  ExpectRefused(EncodeClientFrame(Opcode::kText, "ok\xc3", kMask, false) +
                    EncodeClientFrame(Opcode::kContinuation, "", kMask),
                kCloseInvalidPayload);
  ExpectRefused(EncodeClientFrame(Opcode::kClose, "\x03\xe8\xc0\xaf", kMask), kCloseInvalidPayload);
  // Binary is not text: any bytes.
  EXPECT_TRUE(FeedWhole(EncodeClientFrame(Opcode::kBinary, "\xff", kMask)).status.ok());
}

TEST(WsEncodeTest, CloseFrameAndReasonTruncation) {
  EXPECT_EQ(EncodeClose(1000, ""), std::string("\x88\x02\x03\xe8", 4));
  EXPECT_EQ(EncodeClose(1009, "too big"), std::string("\x88\x09\x03\xf1") + "too big");

  const std::string exact(123, 'a');
  EXPECT_EQ(EncodeClose(1000, exact).substr(4), exact);
  EXPECT_EQ(EncodeClose(1000, exact + "b").substr(4), exact);

  // 122 ASCII bytes then "é" (2 bytes): byte 123 would split it, so the cut is before it.
  const std::string split = std::string(122, 'a') + "\xc3\xa9";
  const std::string frame = EncodeClose(1001, split);
  EXPECT_EQ(frame.size(), 2u + 2 + 122);
  EXPECT_EQ(static_cast<uint8_t>(frame[1]), 124);
  EXPECT_EQ(frame.substr(4), std::string(122, 'a'));

  // 41 three-byte characters = 123 bytes fit exactly; a 4-byte one at 121 is dropped whole.
  std::string euros;
  for (int i = 0; i < 42; ++i) euros += "\xe2\x82\xac";
  EXPECT_EQ(EncodeClose(1000, euros).substr(4), euros.substr(0, 123));
  const std::string emoji = std::string(121, 'a') + "\xf0\x9f\x98\x80";
  EXPECT_EQ(EncodeClose(1000, emoji).substr(4), std::string(121, 'a'));
}

}  // namespace
}  // namespace agentbox::ws
