#include "http/http_message.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "base/ascii.h"

namespace agentbox {
namespace {

constexpr std::string_view kTokenChars = "!#$%&'*+-.^_`|~";

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || kTokenChars.find(static_cast<char>(c)) != std::string_view::npos;
  });
}

// A field value may hold visible ASCII, spaces, tabs and obs-text, never CR, LF or NUL.
bool IsFieldValue(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](unsigned char c) {
    return c == 0 || c == '\r' || c == '\n' || (c < 0x20 && c != '\t') || c == 0x7f;
  });
}

Status ParseRequestLine(std::string_view line, HttpRequest* req) {
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return InvalidArgument("malformed request line");
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return InvalidArgument("malformed method");
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return InvalidArgument("unsupported HTTP version");
  }
  if (target.empty() || target.front() != '/' || !IsFieldValue(target) ||
      target.find_first_of(" \t") != std::string_view::npos) {
    return InvalidArgument("request target must be an absolute path");
  }
  req->method = std::string(method);
  req->target = std::string(target);
  req->http11 = version == "HTTP/1.1";
  req->keep_alive = req->http11;
  return OkStatus();
}

Status ParseQuery(std::string_view query, HttpRequest* req) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    AB_ASSIGN_OR_RETURN(std::string key, PercentDecode(pair.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      AB_ASSIGN_OR_RETURN(value, PercentDecode(pair.substr(eq + 1), true));
    }
    req->query[key] = value;
  }
  return OkStatus();
}

Status ParseHeaderLine(std::string_view line, HttpRequest* req) {
  if (line.front() == ' ' || line.front() == '\t') {
    return InvalidArgument("obsolete header line folding is not accepted");
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
    return InvalidArgument("malformed header line");
  }
  std::string_view value = TrimBlanks(line.substr(colon + 1));
  if (!IsFieldValue(value)) return InvalidArgument("malformed header value");
  std::string name = AsciiLower(line.substr(0, colon));
  auto [it, inserted] = req->headers.emplace(name, std::string(value));
  if (!inserted) {
    // Two lengths are how one request hides another (request smuggling): refuse, don't pick.
    if (name == "content-length" || name == "host") {
      return InvalidArgument("repeated " + name + " header");
    }
    it->second += ", " + std::string(value);
  }
  return OkStatus();
}

// Content-Length, Transfer-Encoding, Connection and Expect, once every header is in.
Status ApplyFramingHeaders(HttpRequest* req) {
  std::string te = AsciiLower(req->Header("transfer-encoding"));
  std::string cl = req->Header("content-length");
  if (!te.empty() && !cl.empty()) {
    return InvalidArgument("both Content-Length and Transfer-Encoding");
  }
  if (!te.empty()) {
    if (te != "chunked") return InvalidArgument("unsupported transfer coding: " + te);
    req->chunked = true;
  }
  if (!cl.empty()) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(cl.data(), cl.data() + cl.size(), n);
    if (ec != std::errc() || end != cl.data() + cl.size()) {
      return InvalidArgument("malformed Content-Length");
    }
    req->content_length = n;
  }
  std::string conn = AsciiLower(req->Header("connection"));
  if (conn.find("close") != std::string::npos) req->keep_alive = false;
  if (conn.find("keep-alive") != std::string::npos) req->keep_alive = true;
  std::string expect = AsciiLower(req->Header("expect"));
  if (!expect.empty() && expect != "100-continue") {
    return InvalidArgument("unsupported expectation: " + expect);
  }
  req->expect_continue = !expect.empty();
  return OkStatus();
}

}  // namespace

std::string HttpRequest::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::string HttpRequest::Query(const std::string& name) const {
  auto it = query.find(name);
  return it == query.end() ? std::string() : it->second;
}

bool HttpRequest::QueryFlag(const std::string& name) const {
  std::string v = AsciiLower(Query(name));
  return v == "1" || v == "true" || v == "yes";
}

size_t FindHeadEnd(std::string_view buffer) {
  size_t pos = buffer.find("\r\n\r\n");
  return pos == std::string_view::npos ? pos : pos + 4;
}

StatusOr<HttpRequest> ParseRequestHead(std::string_view head) {
  if (head.size() > kMaxRequestHeadBytes) return ResourceExhausted("request head too large");
  if (head.size() < 4 || head.substr(head.size() - 4) != "\r\n\r\n") {
    return InvalidArgument("incomplete request head");
  }
  head.remove_suffix(2);  // keep one CRLF so every line ends in one
  HttpRequest req;
  bool first = true;
  while (!head.empty()) {
    size_t eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    head.remove_prefix(eol + 2);
    if (line.find('\n') != std::string_view::npos || line.find('\r') != std::string_view::npos) {
      return InvalidArgument("bare CR or LF in the request head");
    }
    if (line.empty()) return InvalidArgument("empty line in the request head");
    AB_RETURN_IF_ERROR(first ? ParseRequestLine(line, &req) : ParseHeaderLine(line, &req));
    first = false;
  }
  if (first) return InvalidArgument("empty request");
  AB_RETURN_IF_ERROR(ApplyFramingHeaders(&req));
  std::string_view target = req.target;
  size_t q = target.find('?');
  AB_ASSIGN_OR_RETURN(req.path, PercentDecode(target.substr(0, q), false));
  if (q != std::string_view::npos) AB_RETURN_IF_ERROR(ParseQuery(target.substr(q + 1), &req));
  return req;
}

StatusOr<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
    } else if (c == '%') {
      int value = 0;
      auto [end, ec] = std::from_chars(text.data() + i + 1,
                                       text.data() + std::min(i + 3, text.size()), value, 16);
      if (ec != std::errc() || end != text.data() + i + 3) {
        return InvalidArgument("malformed percent escape in the request target");
      }
      if (value == 0) return InvalidArgument("NUL byte in the request target");
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

StatusOr<size_t> ChunkedDecoder::FeedLine(std::string_view input) {
  constexpr size_t kMaxChunkLine = 4096;
  size_t eol = input.find("\r\n");
  // The same limit whether the line's end has arrived yet or not: how TCP cuts the bytes must
  // not decide whether a request is accepted (found by http_request_fuzzer).
  // Without its end, the line is at least as long as what arrived, less a '\r' that may be
  // the first byte of the CRLF.
  size_t known = eol != std::string_view::npos ? eol : input.size() - input.ends_with('\r');
  if (known > kMaxChunkLine) return InvalidArgument("chunk line too long");
  if (eol == std::string_view::npos) return 0;
  std::string_view line = input.substr(0, eol);
  if (state_ == State::kDataEnd) {
    if (!line.empty()) return InvalidArgument("chunk data longer than its size");
    state_ = State::kSize;
  } else if (state_ == State::kTrailer) {
    if (line.empty()) state_ = State::kDone;
  } else {  // kSize: hex digits, then optional ";extension"
    std::string_view hex = TrimBlanks(line.substr(0, line.find(';')));
    uint64_t size = 0;
    auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
    if (hex.empty() || ec != std::errc() || end != hex.data() + hex.size()) {
      return InvalidArgument("malformed chunk size");
    }
    if (size > max_body_ - total_) return ResourceExhausted("request body too large");
    remaining_ = size;
    state_ = size == 0 ? State::kTrailer : State::kData;
  }
  return eol + 2;
}

StatusOr<size_t> ChunkedDecoder::Feed(std::string_view input, std::string* body) {
  size_t used = 0;
  while (state_ != State::kDone && used < input.size()) {
    if (state_ == State::kData) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, input.size() - used));
      body->append(input.substr(used, n));
      used += n;
      remaining_ -= n;
      total_ += n;
      if (remaining_ == 0) state_ = State::kDataEnd;
      continue;
    }
    AB_ASSIGN_OR_RETURN(size_t n, FeedLine(input.substr(used)));
    if (n == 0) break;
    used += n;
  }
  return used;
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 101:
      return "Switching Protocols";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 426:
      return "Upgrade Required";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string ResponseHead(int status, const HeaderList& headers,
                         std::optional<uint64_t> content_length, bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) + "\r\n";
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  if (status == 204 || status == 304) {
    // These never have a body, and RFC 9110 §8.6 forbids announcing one.
  } else if (content_length) {
    out += "Content-Length: " + std::to_string(*content_length) + "\r\n";
  } else {
    out += "Transfer-Encoding: chunked\r\n";
  }
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  return out;
}

std::string ChunkFrame(std::string_view data) {
  if (data.empty()) return {};
  char hex[20];
  auto [end, ec] = std::to_chars(hex, hex + sizeof(hex), data.size(), 16);
  (void)ec;
  std::string out(hex, end);
  out += "\r\n";
  out += data;
  out += "\r\n";
  return out;
}

}  // namespace agentbox
