// Small file helpers with errno context: every failure says which call failed on which path.
//
// Host side only (they allocate). Kernel interface files (cgroupfs, procfs) are read and written
// with exactly one read loop / one write(2), because each write there is one command.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

// The absolute path of this process's binary (/proc/self/exe resolved).
StatusOr<std::string> SelfExePath();

// A pipe, both ends O_CLOEXEC. Fails with "pipe: <strerror>".
StatusOr<Pipe> MakePipe();

// Opens `path` with O_CLOEXEC added to `flags`. Fails with "open <path>: <strerror>".
StatusOr<UniqueFd> OpenFile(const std::string& path, int flags, mode_t mode = 0);

// Reads the whole file. Works on procfs/cgroupfs files whose size reports as 0.
StatusOr<std::string> ReadFile(const std::string& path);
// The same for a file from outside (a config or tokens file): kInvalidArgument naming the path
// when it holds more than max_bytes, without reading further.
StatusOr<std::string> ReadFileAtMost(const std::string& path, size_t max_bytes);

// Writes `data` to an existing file with a single write(2) (O_WRONLY|O_TRUNC, never creates).
// Meant for kernel interface files such as cgroup.procs or /proc/PID/uid_map, where a partial
// or split write would be a different command.
Status WriteExistingFile(const std::string& path, std::string_view data);

// Creates or truncates `path` (with `mode` when created) and writes all of `data`.
Status WriteFile(const std::string& path, std::string_view data, mode_t mode = 0644);

bool PathExists(const std::string& path);

// The target of the symlink at `path` (e.g. /proc/self/ns/user -> "user:[4026531837]").
StatusOr<std::string> ReadLink(const std::string& path);

// mkdir that treats an existing directory as success.
Status MakeDir(const std::string& path, mode_t mode = 0755);

// mkdir -p: makes `path` and any missing parents.
Status MakeDirs(const std::string& path, mode_t mode = 0755);

// Names of the entries of a directory, without "." and "..", unsorted.
StatusOr<std::vector<std::string>> ListDir(const std::string& path);

// rm -rf of path: never follows a symlink (the link is removed, not its target) and never
// crosses into another mount. Best effort; true when path is gone afterwards.
bool RemoveTree(const std::string& path);

}  // namespace agentbox
