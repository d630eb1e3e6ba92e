// The verify probe and the parsers of what it prints (see core/verify.h).
#include <algorithm>
#include <charconv>

#include "core/verify.h"

namespace agentbox {
namespace {

constexpr std::string_view kMarker = "==agentbox-verify:";

// Sections and the command printing each. Only sh builtins, cat and ls: busybox has them all.
constexpr std::pair<const char*, const char*> kSections[] = {
    {"status", "cat /proc/self/status"},
    {"uid_map", "cat /proc/self/uid_map"},
    {"gid_map", "cat /proc/self/gid_map"},
    {"mountinfo", "cat /proc/self/mountinfo"},
    {"net_dev", "cat /proc/net/dev"},
    {"ns", "ls -l /proc/self/ns/"},
    {"osrelease", "cat /proc/sys/kernel/osrelease"},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Calls fn(line) for each line of text, without the newline.
template <typename Fn>
void ForEachLine(std::string_view text, Fn fn) {
  while (!text.empty()) {
    size_t eol = text.find('\n');
    fn(text.substr(0, eol));
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
}

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    line = Trim(line);
    if (line.empty()) break;
    size_t end = line.find_first_of(" \t");
    out.push_back(line.substr(0, end));
    if (end == std::string_view::npos) break;
    line.remove_prefix(end);
  }
  return out;
}

std::optional<uint64_t> ParseU64(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::vector<std::string> VerifyProbeArgv() {
  std::string script;
  for (const auto& [name, command] : kSections) {
    script += "echo '" + std::string(kMarker) + name + "=='; " + command + "; ";
  }
  script += "exit 0";
  return {"/bin/sh", "-c", script};
}

std::map<std::string, std::string> SplitProbeOutput(std::string_view text) {
  std::map<std::string, std::string> sections;
  std::string* current = nullptr;
  ForEachLine(text, [&](std::string_view line) {
    if (line.starts_with(kMarker) && line.ends_with("==")) {
      std::string name(line.substr(kMarker.size(), line.size() - kMarker.size() - 2));
      current = &sections[name];  // a repeated marker restarts its section
      current->clear();
      return;
    }
    if (current != nullptr) current->append(line).push_back('\n');
  });
  return sections;
}

std::optional<std::string> StatusField(std::string_view status, std::string_view key) {
  std::optional<std::string> value;
  ForEachLine(status, [&](std::string_view line) {
    if (value || !line.starts_with(key) || line.size() <= key.size() || line[key.size()] != ':') {
      return;
    }
    value = std::string(Trim(line.substr(key.size() + 1)));
  });
  return value;
}

std::map<std::string, std::string> ParseNamespaceLinks(std::string_view ls_output) {
  std::map<std::string, std::string> links;
  ForEachLine(ls_output, [&](std::string_view line) {
    size_t arrow = line.find(" -> ");
    if (arrow == std::string_view::npos) return;
    std::string_view target = Trim(line.substr(arrow + 4));
    // coreutils quotes names with brackets when writing to a terminal: 'user:[4026531837]'
    if (target.size() >= 2 && target.front() == '\'' && target.back() == '\'') {
      target = target.substr(1, target.size() - 2);
    }
    size_t colon = target.find(":[");
    if (colon == std::string_view::npos || colon == 0 || !target.ends_with("]")) return;
    links[std::string(target.substr(0, colon))] = std::string(target);
  });
  return links;
}

std::optional<uint64_t> MapToOutside(std::string_view id_map, uint64_t inside) {
  std::optional<uint64_t> outside;
  ForEachLine(id_map, [&](std::string_view line) {
    std::vector<std::string_view> f = Fields(line);
    if (outside || f.size() != 3) return;
    auto first = ParseU64(f[0]), lower = ParseU64(f[1]), count = ParseU64(f[2]);
    if (!first || !lower || !count || inside < *first || inside - *first >= *count) return;
    outside = *lower + (inside - *first);
  });
  return outside;
}

std::vector<std::string> ParseNetDevNames(std::string_view net_dev) {
  std::vector<std::string> names;
  ForEachLine(net_dev, [&](std::string_view line) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || line.find('|') != std::string_view::npos) return;
    std::string_view name = Trim(line.substr(0, colon));
    if (!name.empty()) names.emplace_back(name);
  });
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace agentbox
