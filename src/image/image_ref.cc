#include "image/image_ref.h"

#include "image/digest.h"

namespace agentbox::image {
namespace {

constexpr std::string_view kDockerHub = "docker.io";
// The longest name (registry/repository) a reference may have: the distribution spec's bound.
constexpr size_t kMaxNameLength = 255;

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// A path component: [a-z0-9]+ joined by ".", "_", "__" or runs of "-" (the distribution spec).
bool ValidComponent(std::string_view c) {
  if (c.empty() || !IsLowerAlnum(c.front()) || !IsLowerAlnum(c.back())) return false;
  for (size_t i = 0; i < c.size(); ++i) {
    char ch = c[i];
    if (IsLowerAlnum(ch)) continue;
    if (ch != '.' && ch != '_' && ch != '-') return false;
    if (ch == '.' && !IsLowerAlnum(c[i + 1])) return false;
    if (ch == '_' && c[i + 1] == '_' && c[i + 2] == '_') return false;
  }
  return true;
}

bool ValidTag(std::string_view tag) {
  if (tag.empty() || tag.size() > 128) return false;
  for (size_t i = 0; i < tag.size(); ++i) {
    char c = tag[i];
    bool word = IsLowerAlnum(c) || (c >= 'A' && c <= 'Z') || c == '_';
    if (!word && (i == 0 || (c != '.' && c != '-'))) return false;
  }
  return true;
}

bool ValidDomain(std::string_view d) {
  if (d.empty()) return false;
  for (char c : d) {
    bool ok = IsLowerAlnum(c) || (c >= 'A' && c <= 'Z') || c == '.' || c == '-' || c == ':' ||
              c == '[' || c == ']';
    if (!ok) return false;
  }
  return true;
}

bool LooksLikeDomain(std::string_view first) {
  return first.find('.') != std::string_view::npos || first.find(':') != std::string_view::npos ||
         first == "localhost";
}

Status Bad(std::string_view text, const std::string& why) {
  return InvalidArgument("invalid image reference \"" + std::string(text.substr(0, 256)) +
                         "\": " + why);
}

}  // namespace

std::string ImageRef::Canonical() const {
  if (!tag.empty()) return Name() + ":" + tag;
  return Name() + "@" + digest;
}

std::string ImageRef::Familiar() const { return FamiliarName(Canonical()); }

std::string FamiliarName(std::string_view canonical) {
  std::string s(canonical);
  const std::string hub = std::string(kDockerHub) + "/";
  if (s.rfind(hub, 0) != 0) return s;
  s = s.substr(hub.size());
  if (s.rfind("library/", 0) == 0) s = s.substr(8);
  return s;
}

StatusOr<ImageRef> ParseImageRef(std::string_view text) {
  if (text.empty()) return Bad(text, "empty");
  // Each part has its own bound below (the name's on its canonical form, since a short one grows by
  // docker.io/library/); this only stops text longer than name:tag@digest could be early.
  if (text.size() > kMaxNameLength + 1 + 128 + 1 + 71) return Bad(text, "too long");
  ImageRef ref;
  std::string_view rest = text;
  if (size_t at = rest.find('@'); at != std::string_view::npos) {
    ref.digest = std::string(rest.substr(at + 1));
    if (!CheckDigest(ref.digest).ok()) return Bad(text, "the digest is not sha256:<64 hex>");
    rest = rest.substr(0, at);
  }
  size_t slash = rest.find('/');
  if (slash != std::string_view::npos && LooksLikeDomain(rest.substr(0, slash))) {
    ref.domain = std::string(rest.substr(0, slash));
    if (!ValidDomain(ref.domain)) return Bad(text, "bad registry \"" + ref.domain + "\"");
    rest = rest.substr(slash + 1);
  } else {
    ref.domain = std::string(kDockerHub);
  }
  // A ':' after the last '/' starts the tag.
  size_t last_slash = rest.rfind('/');
  size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos &&
      (last_slash == std::string_view::npos || colon > last_slash)) {
    ref.tag = std::string(rest.substr(colon + 1));
    if (!ValidTag(ref.tag)) return Bad(text, "bad tag \"" + ref.tag + "\"");
    rest = rest.substr(0, colon);
  }
  for (size_t start = 0;;) {
    size_t end = rest.find('/', start);
    std::string_view comp = rest.substr(start, end - start);
    if (!ValidComponent(comp)) {
      return Bad(text, "bad repository name (lower-case letters, digits and . _ - only)");
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  ref.repository = std::string(rest);
  if (ref.domain == kDockerHub && ref.repository.find('/') == std::string::npos) {
    ref.repository = "library/" + ref.repository;
  }
  if (ref.tag.empty() && ref.digest.empty()) ref.tag = "latest";
  // As the distribution spec bounds it: the whole name, so the canonical form parses again.
  if (ref.Name().size() > kMaxNameLength) {
    return Bad(text, "the name " + ref.Name() + " is longer than 255 characters");
  }
  return ref;
}

bool IsLoopbackRegistry(std::string_view domain) {
  std::string_view host = domain;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    return close != std::string_view::npos && host.substr(1, close - 1) == "::1";
  }
  if (size_t colon = host.find(':'); colon != std::string_view::npos) host = host.substr(0, colon);
  if (host == "localhost") return true;
  if (host.rfind("127.", 0) != 0) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.')
      ++dots;
    else if (c < '0' || c > '9')
      return false;
  }
  return dots == 3;
}

}  // namespace agentbox::image
