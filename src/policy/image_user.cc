#include "policy/image_user.h"

#include <charconv>
#include <optional>
#include <string>

namespace agentbox {
namespace {

// The highest id agentbox maps into a sandbox (layer_unpack.h: above it is nobody's).
constexpr uint64_t kMaxId = 65534;

std::optional<uint64_t> Number(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Field `index` of the line of `db` (passwd or group format) whose first field is `name`.
std::optional<std::string_view> Lookup(std::string_view db, std::string_view name, size_t index) {
  while (!db.empty()) {
    size_t nl = db.find('\n');
    std::string_view line = db.substr(0, nl);
    db.remove_prefix(nl == std::string_view::npos ? db.size() : nl + 1);
    if (line.substr(0, line.find(':')) != name) continue;
    for (size_t i = 0; i < index; ++i) {
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) return std::nullopt;
      line.remove_prefix(colon + 1);
    }
    return line.substr(0, line.find(':'));
  }
  return std::nullopt;
}

// At most 64 bytes of an image's text, a control byte shown as '?': the error stays one line.
std::string Quoted(std::string_view s) {
  std::string out(s.substr(0, 64));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return "\"" + out + "\"";
}

StatusOr<uint64_t> IdOf(std::string_view spec, std::string_view db, const char* file,
                        const char* what) {
  if (std::optional<uint64_t> n = Number(spec)) return *n;
  std::optional<std::string_view> field = Lookup(db, spec, 2);
  std::optional<uint64_t> id = field ? Number(*field) : std::nullopt;
  if (!id) {
    return InvalidArgument(std::string("the image's User names the ") + what + " " + Quoted(spec) +
                           ", which its " + file + " does not list");
  }
  return *id;
}

}  // namespace

bool ImageUserNeedsLookup(std::string_view user) {
  size_t colon = user.find(':');
  std::string_view name = user.substr(0, colon);
  bool named_group = colon != std::string_view::npos && !Number(user.substr(colon + 1)).has_value();
  return (!name.empty() && !Number(name).has_value() && name != "root") || named_group;
}

StatusOr<SandboxUser> ResolveImageUser(std::string_view user, std::string_view passwd,
                                       std::string_view group) {
  const SandboxUser strict;  // uid/gid 1000
  size_t colon = user.find(':');
  std::string_view name = user.substr(0, colon);
  if (name.empty() || name == "root") return strict;
  AB_ASSIGN_OR_RETURN(uint64_t uid, IdOf(name, passwd, "/etc/passwd", "user"));
  if (uid == 0) return strict;
  uint64_t gid = 0;
  if (colon != std::string_view::npos && colon + 1 < user.size()) {
    AB_ASSIGN_OR_RETURN(gid, IdOf(user.substr(colon + 1), group, "/etc/group", "group"));
  } else if (!Number(name)) {
    std::optional<std::string_view> field = Lookup(passwd, name, 3);
    gid = field ? Number(*field).value_or(0) : 0;
  }  // a bare number without a group: the group of its own number, below
  if (gid == 0) gid = uid;
  if (uid > kMaxId || gid > kMaxId) {
    return InvalidArgument("the image's User " + Quoted(user) + " is id " + std::to_string(uid) +
                           ":" + std::to_string(gid) + ", past " + std::to_string(kMaxId) +
                           ", the highest id agentbox maps into a sandbox");
  }
  return SandboxUser{static_cast<uint32_t>(uid), static_cast<uint32_t>(gid)};
}

std::string SandboxUserText(const SandboxUser& user) {
  return std::to_string(user.uid) + ":" + std::to_string(user.gid);
}

StatusOr<SandboxUser> ParseSandboxUser(std::string_view text) {
  size_t colon = text.find(':');
  std::optional<uint64_t> uid = Number(text.substr(0, colon));
  std::optional<uint64_t> gid =
      colon == std::string_view::npos ? std::nullopt : Number(text.substr(colon + 1));
  if (!uid || !gid || *uid == 0 || *gid == 0 || *uid > kMaxId || *gid > kMaxId) {
    return InvalidArgument("want UID:GID, both in 1.." + std::to_string(kMaxId) + ", got " +
                           Quoted(text));
  }
  return SandboxUser{static_cast<uint32_t>(*uid), static_cast<uint32_t>(*gid)};
}

}  // namespace agentbox
