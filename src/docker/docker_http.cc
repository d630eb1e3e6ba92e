#include "docker/docker_http.h"

#include <cctype>
#include <charconv>

#include "base/ascii.h"

namespace agentbox::docker {
namespace {

StatusOr<std::string> Dechunk(std::string_view in) {
  std::string out;
  for (;;) {
    size_t eol = in.find("\r\n");
    if (eol == std::string_view::npos) return Internal("docker: truncated chunked response");
    std::string_view size_text = in.substr(0, eol);
    if (size_t semi = size_text.find(';'); semi != std::string_view::npos) {
      size_text = size_text.substr(0, semi);
    }
    size_text = TrimBlanks(size_text);
    size_t size = 0;
    auto [end, ec] =
        std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
    if (ec != std::errc() || end != size_text.data() + size_text.size()) {
      return Internal("docker: malformed chunk size in response");
    }
    in.remove_prefix(eol + 2);
    if (size == 0) return out;
    if (in.size() < size + 2) return Internal("docker: truncated chunked response");
    out.append(in.substr(0, size));
    in.remove_prefix(size + 2);
  }
}

}  // namespace

std::string BuildHttpRequest(std::string_view method, std::string_view path,
                             std::string_view content_type, std::string_view body) {
  std::string req;
  req.reserve(160 + body.size());
  req.append(method).append(" ").append(path).append(" HTTP/1.1\r\n");
  req.append("Host: docker\r\nUser-Agent: agentbox\r\nConnection: close\r\n");
  if (!content_type.empty()) {
    req.append("Content-Type: ").append(content_type).append("\r\n");
    req.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  req.append("\r\n");
  if (!content_type.empty()) req.append(body);
  return req;
}

StatusOr<HttpResponse> ParseHttpResponse(std::string_view raw) {
  size_t head_end = raw.find("\r\n\r\n");
  if (head_end == std::string_view::npos) {
    return Unavailable("docker: the daemon closed the connection without a response");
  }
  std::string_view head = raw.substr(0, head_end);
  std::string_view rest = raw.substr(head_end + 4);
  size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  HttpResponse response;
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12) {
    return Internal("docker: malformed status line in response");
  }
  auto [p, ec] = std::from_chars(status_line.data() + 9, status_line.data() + 12, response.status);
  if (ec != std::errc() || response.status < 100) {
    return Internal("docker: malformed status line in response");
  }
  while (eol != std::string_view::npos) {
    head.remove_prefix(eol + 2);
    eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    response.headers[AsciiLower(TrimBlanks(line.substr(0, colon)))] =
        std::string(TrimBlanks(line.substr(colon + 1)));
  }
  auto te = response.headers.find("transfer-encoding");
  if (te != response.headers.end() && AsciiLower(te->second).find("chunked") != std::string::npos) {
    AB_ASSIGN_OR_RETURN(response.body, Dechunk(rest));
    return response;
  }
  auto cl = response.headers.find("content-length");
  if (cl != response.headers.end()) {
    size_t length = 0;
    auto [e, err] =
        std::from_chars(cl->second.data(), cl->second.data() + cl->second.size(), length);
    if (err != std::errc() || e != cl->second.data() + cl->second.size()) {
      return Internal("docker: malformed Content-Length in response");
    }
    if (rest.size() < length) return Internal("docker: truncated response body");
    rest = rest.substr(0, length);
  }
  response.body = std::string(rest);
  return response;
}

std::string UrlEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace agentbox::docker
