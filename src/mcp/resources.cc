#include "mcp/resources.h"

#include <array>
#include <cctype>
#include <utility>

#include "base/base64.h"
#include "base/utf8.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

constexpr std::string_view kWorkspace = "/workspace";
constexpr std::string_view kCursorPrefix = "agentbox-offset:";

// RFC 3986's unreserved characters and the sub-delims a path segment keeps as they are.
bool KeptInSegment(unsigned char c) {
  return std::isalnum(c) ||
         std::string_view("-._~!$&'()*+,;=:@").find(static_cast<char>(c)) != std::string_view::npos;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kMimeTypes = {{
    {".txt", "text/plain"},
    {".md", "text/markdown"},
    {".json", "application/json"},
    {".html", "text/html"},
    {".css", "text/css"},
    {".csv", "text/csv"},
    {".xml", "application/xml"},
    {".yaml", "application/yaml"},
    {".yml", "application/yaml"},
    {".js", "text/javascript"},
    {".mjs", "text/javascript"},
    {".ts", "text/x-typescript"},
    {".py", "text/x-python"},
    {".c", "text/x-c"},
    {".h", "text/x-c"},
    {".cc", "text/x-c++"},
    {".cpp", "text/x-c++"},
    {".sh", "text/x-shellscript"},
    {".png", "image/png"},
    {".jpg", "image/jpeg"},
    {".gif", "image/gif"},
    {".pdf", "application/pdf"},
    {".gz", "application/gzip"},
    {".zip", "application/zip"},
}};

}  // namespace

std::string WorkspaceUri(std::string_view relative_path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri(kWorkspaceUriPrefix);
  for (unsigned char c : relative_path) {
    if (c == '/' || KeptInSegment(c)) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri;
}

StatusOr<std::string> WorkspacePathOfUri(std::string_view uri) {
  if (uri.substr(0, kWorkspaceUriPrefix.size()) != kWorkspaceUriPrefix) {
    return InvalidArgument("not a workspace resource: a resource URI is file:///workspace/PATH");
  }
  std::string path(kWorkspace);
  std::string segment;
  auto end_segment = [&]() -> Status {
    if (segment == "." || segment == "..") {
      return InvalidArgument("a resource URI names no \".\" or \"..\" segment");
    }
    if (!segment.empty()) path += "/" + segment;
    segment.clear();
    return OkStatus();
  };
  std::string_view rest = uri.substr(kWorkspaceUriPrefix.size());
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '?' || c == '#') return InvalidArgument("a resource URI has no query or fragment");
    if (c == '/') {
      AB_RETURN_IF_ERROR(end_segment());
      continue;
    }
    if (c == '%') {
      const int hi = i + 2 < rest.size() ? HexValue(rest[i + 1]) : -1;
      const int lo = i + 2 < rest.size() ? HexValue(rest[i + 2]) : -1;
      if (hi < 0 || lo < 0) return InvalidArgument("a resource URI has a bad %-escape");
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0') return InvalidArgument("a resource URI names no NUL byte");
    segment += c;
  }
  AB_RETURN_IF_ERROR(end_segment());
  return path;
}

std::string MimeTypeOf(std::string_view name) {
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || name.find('/', dot) != std::string_view::npos) {
    return "text/plain";
  }
  std::string ext;
  for (char c : name.substr(dot))
    ext += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [known, type] : kMimeTypes) {
    if (ext == known) return std::string(type);
  }
  return "text/plain";
}

json ResourceEntry(std::string_view relative_path, uint64_t size) {
  return {{"uri", WorkspaceUri(relative_path)},
          {"name", SanitizeUtf8(std::string(relative_path))},
          {"mimeType", MimeTypeOf(relative_path)},
          {"size", size}};
}

json WorkspaceTemplate() {
  return {{"uriTemplate", "file:///workspace/{+path}"},
          {"name", "workspace-file"},
          {"title", "A file in the sandbox's /workspace"},
          {"description",
           "Any file beneath /workspace by its path, e.g. file:///workspace/src/main.c. Text "
           "comes back as text, anything else as a base64 blob; at most 4 MiB per file."}};
}

json ResourceContents(std::string_view uri, std::string_view name, const std::string& bytes) {
  const std::string type = MimeTypeOf(name);
  if (IsValidUtf8(bytes) && bytes.find('\0') == std::string::npos) {
    return {{"uri", uri}, {"mimeType", type}, {"text", bytes}};
  }
  const bool textual = type.rfind("text/", 0) == 0 || type == "application/json" ||
                       type == "application/xml" || type == "application/yaml";
  return {{"uri", uri},
          {"mimeType", textual ? "application/octet-stream" : type},
          {"blob", Base64Encode(bytes)}};
}

std::string EncodeCursor(size_t next) {
  return Base64Encode(std::string(kCursorPrefix) + std::to_string(next));
}

std::optional<size_t> DecodeCursor(std::string_view cursor) {
  std::optional<std::string> text = Base64Decode(cursor);
  if (!text || text->rfind(kCursorPrefix, 0) != 0) return std::nullopt;
  const std::string digits = text->substr(kCursorPrefix.size());
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return static_cast<size_t>(std::stoul(digits));
}

}  // namespace agentbox::mcp
