// HTTP/1.1 messages for `agentbox serve`: request heads, chunked bodies, response heads.
//
// Pure functions over bytes, so the parser that faces untrusted clients is unit-tested without
// sockets. The parser is strict where leniency lets one request hide inside another (request
// smuggling, RFC 9112 §6.3): both Content-Length and Transfer-Encoding, differing lengths, a
// transfer coding other than chunked, obs-fold lines and bare LF are all rejected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace agentbox {

inline constexpr size_t kMaxRequestHeadBytes = 16 * 1024;

struct HttpRequest {
  std::string method;                          // "GET", "POST", ...
  std::string target;                          // as sent: "/v1/sandboxes?x=1"
  std::string path;                            // target without the query, percent-decoded
  std::map<std::string, std::string> query;    // decoded; a repeated key keeps the last value
  std::map<std::string, std::string> headers;  // names lower-cased; repeats joined with ", "
  std::optional<uint64_t> content_length;
  bool chunked = false;          // Transfer-Encoding: chunked
  bool http11 = true;            // HTTP/1.1 (false: HTTP/1.0)
  bool keep_alive = true;        // HTTP/1.1 default unless "Connection: close"
  bool expect_continue = false;  // "Expect: 100-continue"
  // The body; on a request that upgrades the connection (a WebSocket), the bytes read past its
  // head: the new protocol's first.
  std::string body;

  // The header's value, or "" when absent. `name` must be lower case.
  std::string Header(const std::string& name) const;
  // The query parameter's value, or "".
  std::string Query(const std::string& name) const;
  // True for "1", "true", "yes" (a present flag with another value is false).
  bool QueryFlag(const std::string& name) const;
};

// Index just past the "\r\n\r\n" ending the head in `buffer`, or npos while it is incomplete.
size_t FindHeadEnd(std::string_view buffer);

// Parses a complete head (request line and headers, ending in "\r\n\r\n"). kInvalidArgument
// names what is wrong; the caller answers 400 and closes.
StatusOr<HttpRequest> ParseRequestHead(std::string_view head);

// "%2Fa+b" -> "/a b" (plus as space only when `plus_is_space`); kInvalidArgument on a bad escape
// or a decoded NUL byte.
StatusOr<std::string> PercentDecode(std::string_view text, bool plus_is_space);

// Decodes a chunked request body incrementally (RFC 9112 §7.1). Trailers are read and ignored.
class ChunkedDecoder {
 public:
  explicit ChunkedDecoder(uint64_t max_body) : max_body_(max_body) {}
  // Consumes what it can of `input`, appending body bytes to *body. Returns the bytes consumed;
  // kInvalidArgument for a malformed stream, kResourceExhausted past max_body.
  StatusOr<size_t> Feed(std::string_view input, std::string* body);
  bool done() const { return state_ == State::kDone; }

 private:
  enum class State { kSize, kData, kDataEnd, kTrailer, kDone };
  StatusOr<size_t> FeedLine(std::string_view input);

  uint64_t max_body_;
  uint64_t total_ = 0;
  uint64_t remaining_ = 0;
  State state_ = State::kSize;
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// "HTTP/1.1 404 Not Found\r\n" + headers + "\r\n". With a content_length, a Content-Length
// header is added; without one, "Transfer-Encoding: chunked".
std::string ResponseHead(int status, const HeaderList& headers,
                         std::optional<uint64_t> content_length, bool keep_alive);
const char* ReasonPhrase(int status);
// One chunk of a chunked body; an empty `data` gives nothing (the end is ChunkedEnd()).
std::string ChunkFrame(std::string_view data);
inline constexpr std::string_view kChunkedEnd = "0\r\n\r\n";

}  // namespace agentbox
