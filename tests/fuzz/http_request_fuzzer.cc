// The HTTP/1.1 request parser of `agentbox serve` (src/http/http_message.*, routes.*): the
// input is a client's byte stream, read the way HttpConnection does (heads, then chunked or
// Content-Length bodies, pipelined). Beyond not crashing: a chunked body decodes the same
// whether it arrives in one read or split across many (the first byte picks the split size),
// since TCP gives no say in how bytes are cut.
#include <optional>

#include "fuzz_util.h"
#include "http/http_message.h"
#include "http/routes.h"

using namespace agentbox;

namespace {

struct Decoded {
  bool failed = false;
  bool done = false;
  size_t consumed = 0;
  std::string body;
};

Decoded DecodeWhole(std::string_view input, uint64_t max_body) {
  Decoded d;
  ChunkedDecoder decoder(max_body);
  auto used = decoder.Feed(input, &d.body);
  d.failed = !used.ok();
  if (used.ok()) d.consumed = *used;
  d.done = decoder.done();
  return d;
}

// Bytes arrive `step` at a time; what Feed leaves unconsumed is fed again with the next ones.
Decoded DecodeSplit(std::string_view input, uint64_t max_body, size_t step) {
  Decoded d;
  ChunkedDecoder decoder(max_body);
  std::string pending;
  size_t offset = 0;
  while (offset < input.size() && !decoder.done()) {
    size_t n = std::min(step, input.size() - offset);
    pending.append(input.substr(offset, n));
    offset += n;
    auto used = decoder.Feed(pending, &d.body);
    if (!used.ok()) {
      d.failed = true;
      return d;
    }
    pending.erase(0, *used);
  }
  d.done = decoder.done();
  d.consumed = offset - pending.size();
  return d;
}

void CheckChunked(std::string_view input, size_t step) {
  constexpr uint64_t kMaxBody = 4096;
  Decoded whole = DecodeWhole(input, kMaxBody);
  Decoded split = DecodeSplit(input, kMaxBody, step);
  FUZZ_CHECK(whole.failed == split.failed, "split changed success, step " + std::to_string(step));
  if (whole.failed) return;
  FUZZ_CHECK(whole.done == split.done, "split changed completion");
  FUZZ_CHECK(whole.body == split.body, "split changed the body");
  if (whole.done) FUZZ_CHECK(whole.consumed == split.consumed, "split changed the length");
  FUZZ_CHECK(whole.body.size() <= kMaxBody, "body beyond max_body");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = 1 + data[0] % 16;
  std::string in(fuzz::AsText(data + 1, size - 1));
  for (int pipelined = 0; pipelined < 4; ++pipelined) {
    size_t end = FindHeadEnd(in);
    if (end == std::string::npos) return 0;
    FUZZ_CHECK(end <= in.size(), "head end past the buffer");
    auto request = ParseRequestHead(std::string_view(in).substr(0, end));
    in.erase(0, end);
    if (!request.ok()) return 0;
    FUZZ_CHECK(!(request->chunked && request->content_length), "smuggling: both lengths");
    FUZZ_CHECK(request->path.find('\0') == std::string::npos, "NUL in the decoded path");
    std::string allow;
    if (auto match = MatchRoute(request->method, request->path, &allow); match.ok()) {
      (void)MaxBodyBytes(*match->route);
    }
    (void)request->QueryFlag("force");
    (void)request->Header("authorization");
    if (request->chunked) {
      CheckChunked(in, step);
      Decoded whole = DecodeWhole(in, 1 << 20);
      if (whole.failed || !whole.done) return 0;
      in.erase(0, whole.consumed);
    } else {
      uint64_t want = request->content_length.value_or(0);
      if (want > in.size()) return 0;
      in.erase(0, want);
    }
  }
  return 0;
}
