// OutputWalls: the walls a command's own error messages name, read from its stderr as it comes.
//
// The kernel keeps no count of the writes a read-only mount refused or the signals that found
// no process, and watching every open(2) for them would cost every command a round trip per
// call. What the command was told, it usually says: "rm: cannot remove '/usr/bin/x': Read-only
// file system", "[Errno 13] Permission denied: '/usr/local/lib/python3.11/dist-packages'",
// "kill: (4242) - No such process", "Could not resolve host: pypi.org". So each stderr line is
// matched against those words, and a match becomes a wall with the path, pid or host it names,
// counted by where it points (a path's first two components). A heuristic, said as such in the
// report (seen_by "stderr"); exact counts of denied syscalls come from the seccomp listener.
//
// Bounded: the first kMaxScannedBytes of stderr are read (the counts are then "at least"),
// lines are cut at kMaxLineBytes, and at most kMaxOutputWalls distinct walls are kept. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proto/effect_report.h"

namespace agentbox {

class OutputWalls {
 public:
  static constexpr size_t kMaxScannedBytes = 4 * 1024 * 1024;
  static constexpr size_t kMaxLineBytes = 4096;
  static constexpr size_t kMaxOutputWalls = 16;

  // Stderr bytes, in order, in chunks of any size.
  void Feed(std::string_view chunk);
  // The walls seen so far (a last line without its newline included), each with its message.
  std::vector<Wall> Walls() const;

 private:
  struct Seen {
    std::string kind;     // kWall*
    std::string key;      // what groups lines: a path's first two components, a pid, a host
    std::string example;  // the first path (pid, host) seen for the key
    std::string error;    // errno name
    uint64_t count = 0;
  };
  void Line(std::string_view line);
  void Add(const char* kind, std::string key, std::string example, const char* error);

  std::string line_;  // the current line, up to kMaxLineBytes
  uint64_t scanned_ = 0;
  bool stopped_ = false;  // kMaxScannedBytes reached
  std::vector<Seen> seen_;
};

// Hosts named by the name-lookup failures of common clients (curl's "Could not resolve host: X",
// wget's, git's, npm's EAI_AGAIN...), in order, without repeats, at most 8.
std::vector<std::string> HostsOfLookupFailures(std::string_view text);
// A failed lookup or an unreachable network that names no host.
bool ShowsNoNetwork(std::string_view text);

// The wall's message for a kind and its example ("read-only root: /usr/bin/x ..."), shared with
// the other sources of walls so every wall of a kind reads alike.
std::string OutputWallMessage(std::string_view kind, std::string_view example,
                              std::string_view group, uint64_t count, bool at_least);

}  // namespace agentbox
