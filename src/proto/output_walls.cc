#include "proto/output_walls.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace agentbox {
namespace {

bool ContainsNoCase(std::string_view text, std::string_view word) {
  auto it = std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

bool Under(std::string_view path, std::string_view dir) {
  return path.substr(0, dir.size()) == dir &&
         (path.size() == dir.size() || path[dir.size()] == '/');
}

// Where the sandbox may write, and the kernel's own trees: a refusal there is no read-only root.
bool OutsideTheRoot(std::string_view path) {
  for (std::string_view dir : {"/workspace", "/tmp", "/dev", "/proc", "/sys"}) {
    if (Under(path, dir)) return true;
  }
  return false;
}

// The first absolute path the line names: quoted ('/x', "/x", ‘/x’, `/x') or bare after a
// space, a colon or a parenthesis. "" when none.
std::string FirstPath(std::string_view line) {
  static constexpr std::string_view kOpen[] = {"'/", "\"/", "\xe2\x80\x98/", "`/"};
  size_t best = std::string_view::npos, skip = 0;
  for (std::string_view open : kOpen) {
    size_t at = line.find(open);
    if (at < best) best = at, skip = open.size() - 1;
  }
  if (best != std::string_view::npos) {
    size_t start = best + skip;
    size_t end = line.find_first_of("'\"`", start);
    size_t curly = line.find("\xe2\x80\x99", start);
    end = std::min(end, curly);
    return std::string(line.substr(start, end == std::string_view::npos ? end : end - start));
  }
  for (size_t at = line.find('/'); at != std::string_view::npos; at = line.find('/', at + 1)) {
    if (at > 0 && line[at - 1] != ' ' && line[at - 1] != ':' && line[at - 1] != '(') continue;
    size_t end = line.find_first_of(" \t:,)", at);
    return std::string(line.substr(at, end == std::string_view::npos ? end : end - at));
  }
  return "";
}

// "/usr/lib/python3/x" -> "/usr/lib": where refusals are counted together.
std::string GroupOf(std::string_view path) {
  size_t second = path.find('/', 1);
  if (second == std::string_view::npos) return std::string(path);
  size_t third = path.find('/', second + 1);
  return std::string(path.substr(0, third));
}

std::string DigitsAt(std::string_view line, size_t at) {
  size_t end = at;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
  return end > at && end - at <= 10 ? std::string(line.substr(at, end - at)) : "";
}

// The pid a kill said it could not reach: "(4242)", "pid 4242", "signal to 4242". Not any
// number: dash's "sh: 1: kill: ..." has a line number, Python's "[Errno 3]" an errno.
std::string PidOf(std::string_view line) {
  for (std::string_view before : {"(", "pid ", "signal to ", "kill "}) {
    for (size_t at = line.find(before); at != std::string_view::npos;
         at = line.find(before, at + 1)) {
      std::string pid = DigitsAt(line, at + before.size());
      if (!pid.empty()) return pid;
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> HostsOfLookupFailures(std::string_view text) {
  static const char* const kBefore[] = {"Could not resolve host: ",
                                        "unable to resolve host address '",
                                        "unable to resolve host address \xe2\x80\x98",
                                        "bad address '",
                                        "getaddrinfo EAI_AGAIN ",
                                        "getaddrinfo ENOTFOUND ",
                                        "Could not resolve hostname "};
  std::vector<std::string> hosts;
  for (const char* before : kBefore) {
    for (size_t at = text.find(before); at != std::string_view::npos && hosts.size() < 8;
         at = text.find(before, at + 1)) {
      size_t start = at + std::strlen(before), end = start;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) ||
                                   text[end] == '.' || text[end] == '-' || text[end] == '_')) {
        ++end;
      }
      std::string host(text.substr(start, end - start));
      if (!host.empty() && std::find(hosts.begin(), hosts.end(), host) == hosts.end()) {
        hosts.push_back(host);
      }
    }
  }
  return hosts;
}

bool ShowsNoNetwork(std::string_view text) {
  for (const char* sign : {"Temporary failure in name resolution", "Name or service not known",
                           "No address associated with hostname", "Network is unreachable",
                           "EAI_AGAIN", "ENETUNREACH"}) {
    if (text.find(sign) != std::string_view::npos) return true;
  }
  return false;
}

void OutputWalls::Feed(std::string_view chunk) {
  if (stopped_) return;
  if (scanned_ + chunk.size() >= kMaxScannedBytes) {
    chunk = chunk.substr(0, kMaxScannedBytes - scanned_);
    stopped_ = true;
  }
  scanned_ += chunk.size();
  while (!chunk.empty()) {
    size_t newline = chunk.find('\n');
    std::string_view part = chunk.substr(0, newline);
    if (line_.size() < kMaxLineBytes) {
      line_.append(part.substr(0, kMaxLineBytes - line_.size()));
    }
    if (newline == std::string_view::npos) return;
    Line(line_);
    line_.clear();
    chunk.remove_prefix(newline + 1);
  }
}

void OutputWalls::Line(std::string_view line) {
  if (ContainsNoCase(line, "read-only file system") || line.find("EROFS") != line.npos) {
    std::string path = FirstPath(line);
    if (!path.empty() && !OutsideTheRoot(path)) {
      Add(kWallReadOnlyRoot, GroupOf(path), path, "EROFS");
    }
    return;
  }
  const bool denied = ContainsNoCase(line, "permission denied");
  if (denied || ContainsNoCase(line, "operation not permitted")) {
    std::string path = FirstPath(line);
    if (path.empty()) return;
    const char* kind = OutsideTheRoot(path) ? kWallPermission : kWallReadOnlyRoot;
    Add(kind, GroupOf(path), path, denied ? "EACCES" : "EPERM");
    return;
  }
  if (line.find("No such process") != line.npos) {
    std::string pid = PidOf(line);
    Add(kWallPidNamespace, pid, pid, "ESRCH");
    return;
  }
  std::vector<std::string> hosts = HostsOfLookupFailures(line);
  if (!hosts.empty()) {
    Add(kWallNetwork, hosts[0], hosts[0], "");
  } else if (ShowsNoNetwork(line)) {
    Add(kWallNetwork, "", "", "");
  }
}

void OutputWalls::Add(const char* kind, std::string key, std::string example, const char* error) {
  for (Seen& s : seen_) {
    if (s.kind == kind && s.key == key) {
      ++s.count;
      return;
    }
  }
  if (seen_.size() == kMaxOutputWalls) return;
  seen_.push_back({kind, std::move(key), std::move(example), error, 1});
}

std::vector<Wall> OutputWalls::Walls() const {
  OutputWalls copy = *this;  // the last line, if it has no newline yet
  if (!copy.line_.empty()) copy.Line(copy.line_);
  std::vector<Wall> walls;
  for (const Seen& s : copy.seen_) {
    Wall w;
    w.wall = s.kind;
    w.what = s.example;
    w.count = s.count;
    w.error = s.error;
    w.rule = s.kind == kWallReadOnlyRoot   ? "read-only root"
             : s.kind == kWallPermission   ? "uid 1000, no capabilities"
             : s.kind == kWallPidNamespace ? "pid namespace"
                                           : "allow_hosts";
    w.seen_by = kSeenInOutput;
    w.message = OutputWallMessage(s.kind, s.example, s.key, s.count, copy.stopped_);
    walls.push_back(std::move(w));
  }
  return walls;
}

std::string OutputWallMessage(std::string_view kind, std::string_view example,
                              std::string_view group, uint64_t count, bool at_least) {
  const std::string times = count > 1 || at_least ? std::string(at_least ? " (at least " : " (") +
                                                        std::to_string(count) + " times under " +
                                                        std::string(group) + ")"
                                                  : "";
  const std::string what(example);
  if (kind == kWallReadOnlyRoot) {
    return "read-only root: " + what + times +
           ": only /workspace, /tmp and /dev/shm are writable (install into /workspace, e.g. a "
           "venv or pip install --target)";
  }
  if (kind == kWallPermission) {
    return "permission denied: " + what + times +
           ": the command runs as uid 1000 with no capabilities";
  }
  if (kind == kWallPidNamespace) {
    return "pid namespace: " + (what.empty() ? std::string("a process") : "process " + what) +
           " is not in the sandbox: the host's processes are invisible and cannot be signalled";
  }
  return "network: " + (what.empty() ? std::string("a connection") : "connect to " + what) +
         " denied by policy: the sandbox has no network (allow_hosts: none)";
}

}  // namespace agentbox
