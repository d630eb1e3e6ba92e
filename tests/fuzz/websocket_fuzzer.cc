// The WebSocket frame parser of `agentbox serve`'s terminal stream (src/http/websocket.*): the
// input is a client's byte stream after the 101. Beyond not crashing: the parser gives the same
// messages, the same verdict and the same close code whether the bytes arrive whole or split
// (the first byte picks the split size), no message is past the limit, a text message is UTF-8,
// a control frame is at most 125 bytes; a frame EncodeClientFrame makes of the input parses back
// to it; EncodeClose always fits a control frame. Each data message is then read as the
// terminal reads it (http/terminal_messages.h): a window size taken is always within bounds.
#include "base/utf8.h"
#include "fuzz_util.h"
#include "http/terminal_messages.h"
#include "http/websocket.h"

using namespace agentbox;
using namespace agentbox::ws;

namespace {

constexpr size_t kMaxMessage = 4096;

struct Outcome {
  bool failed = false;
  uint16_t close_code = 0;
  std::vector<Message> messages;
};

Outcome Parse(std::string_view input, size_t step) {
  Outcome o;
  FrameParser parser(kMaxMessage);
  for (size_t offset = 0; offset < input.size() && !o.failed; offset += step) {
    o.failed = !parser.Feed(input.substr(offset, step), &o.messages).ok();
  }
  o.close_code = parser.close_code();
  return o;
}

bool InBounds(WindowSize size) {
  return size.rows >= 1 && size.rows <= kMaxWindowDimension && size.cols >= 1 &&
         size.cols <= kMaxWindowDimension;
}

void CheckAsTerminal(const Message& m) {
  if (m.opcode == Opcode::kText) {
    auto start = ParseTerminalStart(m.payload);
    if (start.ok()) FUZZ_CHECK(InBounds(start->size), "a first message's size out of bounds");
  }
  auto event = ParseTerminalMessage(m);
  if (event.ok() && event->kind == TerminalEvent::Kind::kResize) {
    FUZZ_CHECK(InBounds(event->size), "a resize out of bounds");
  }
  if (event.ok() && m.opcode == Opcode::kBinary) {
    FUZZ_CHECK(event->bytes == m.payload, "keys changed");
  }
}

void CheckMessages(const std::vector<Message>& messages) {
  for (const Message& m : messages) {
    CheckAsTerminal(m);
    if (m.opcode == Opcode::kText) FUZZ_CHECK(IsValidUtf8(m.payload), "text not UTF-8");
    if (static_cast<uint8_t>(m.opcode) >= 8) {
      FUZZ_CHECK(m.payload.size() <= 125, "control frame over 125 bytes");
    } else {
      FUZZ_CHECK(m.opcode != Opcode::kContinuation, "a continuation delivered as a message");
      FUZZ_CHECK(m.payload.size() <= kMaxMessage, "message past the limit");
    }
  }
}

void CheckSplitInvariance(std::string_view input, size_t step) {
  Outcome whole = Parse(input, input.size() + 1);
  Outcome split = Parse(input, step);
  FUZZ_CHECK(whole.failed == split.failed, "split changed success, step " + std::to_string(step));
  FUZZ_CHECK(whole.close_code == split.close_code, "split changed the close code");
  FUZZ_CHECK(whole.messages.size() == split.messages.size(), "split changed the messages");
  for (size_t i = 0; i < whole.messages.size(); ++i) {
    FUZZ_CHECK(whole.messages[i].opcode == split.messages[i].opcode, "split changed an opcode");
    FUZZ_CHECK(whole.messages[i].payload == split.messages[i].payload, "split changed a payload");
  }
  if (whole.failed) {
    FUZZ_CHECK(whole.close_code == 1002 || whole.close_code == 1007 || whole.close_code == 1009,
               "unexpected close code " + std::to_string(whole.close_code));
  }
  CheckMessages(whole.messages);
}

void CheckRoundTrip(std::string_view payload, uint32_t mask) {
  std::vector<Message> out;
  FrameParser parser(1 << 20);
  FUZZ_CHECK(parser.Feed(EncodeClientFrame(Opcode::kBinary, payload, mask), &out).ok(),
             "own binary frame refused");
  FUZZ_CHECK(out.size() == 1 && out[0].payload == payload, "binary round trip changed");
  const std::string close = EncodeClose(1000, payload);
  FUZZ_CHECK(close.size() <= 2 + 125, "close frame over 125 bytes");
  if (IsValidUtf8(payload)) {
    FUZZ_CHECK(IsValidUtf8(std::string_view(close).substr(4)), "close reason cut mid-character");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = 1 + data[0] % 16;
  std::string_view input = fuzz::AsText(data + 1, size - 1);
  CheckSplitInvariance(input, step);
  CheckRoundTrip(input, static_cast<uint32_t>(size * 2654435761u));
  return 0;
}
