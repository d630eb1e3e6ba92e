#include "sys/mountinfo.h"

#include <sstream>

namespace agentbox {
namespace {

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

// The kernel escapes space, tab, newline and backslash in paths as \ooo (octal).
std::string UnescapeOctal(const std::string& in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\\' && i + 3 < in.size() && IsOctal(in[i + 1]) && IsOctal(in[i + 2]) &&
        IsOctal(in[i + 3])) {
      out.push_back(
          static_cast<char>((in[i + 1] - '0') * 64 + (in[i + 2] - '0') * 8 + (in[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

bool ParseLine(const std::string& line, MountInfoEntry* entry) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string f; in >> f;) fields.push_back(f);
  // id parent major:minor root mount_point options [optional...] - fstype source super_options
  size_t dash = 6;
  while (dash < fields.size() && fields[dash] != "-") ++dash;
  if (dash + 2 >= fields.size()) return false;  // no "-", fstype and source
  entry->root = UnescapeOctal(fields[3]);
  entry->mount_point = UnescapeOctal(fields[4]);
  entry->mount_options = Split(fields[5], ',');
  entry->fs_type = fields[dash + 1];
  entry->source = UnescapeOctal(fields[dash + 2]);
  entry->super_options =
      dash + 3 < fields.size() ? Split(fields[dash + 3], ',') : std::vector<std::string>{};
  return true;
}

}  // namespace

std::vector<MountInfoEntry> ParseMountInfo(std::string_view text) {
  std::vector<MountInfoEntry> entries;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    MountInfoEntry entry;
    if (ParseLine(line, &entry)) entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace agentbox
