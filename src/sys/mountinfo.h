// MountInfo: parsed lines of /proc/PID/mountinfo (proc(5)), pure so tests feed it text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agentbox {

struct MountInfoEntry {
  std::string root;                        // path of the mount's root inside its filesystem
  std::string mount_point;                 // unescaped (\040 -> ' ')
  std::vector<std::string> mount_options;  // per-mount, comma-split, e.g. {"ro", "nosuid"}
  std::string fs_type;                     // e.g. "cgroup", "cgroup2", "tmpfs"
  std::string source;
  std::vector<std::string> super_options;  // comma-split, e.g. {"rw", "memory"}
};

// Parses mountinfo text; malformed lines are skipped (the kernel never writes them, so a
// malformed line means a test fixture or a future format we do not need).
std::vector<MountInfoEntry> ParseMountInfo(std::string_view text);

}  // namespace agentbox
