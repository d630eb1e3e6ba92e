// Host side of the agent's file operations (see proto/agent_protocol.h): each function sends one
// request on its own connection and returns the result or the agent's error as a Status.
//
// Paths are "/workspace/..." or relative to /workspace; the agent resolves them strictly
// beneath it, so an escaping path comes back as kPermissionDenied. Every function has an
// overload on an already connected fd (for tests and callers with their own transport); that
// fd serves that one request only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "core/agent_endpoint.h"

namespace agentbox {

// The agent's own default for read_file's max_bytes.
inline constexpr uint64_t kAgentReadDefaultMaxBytes = 10u << 20;

// One entry of a stat or list_dir answer. type: "file", "dir", "symlink" or "other"; mode: the
// permission bits; mtime: seconds since the epoch. A symlink is described, not followed.
struct AgentFileInfo {
  std::string type;
  uint64_t size = 0;
  uint32_t mode = 0;
  int64_t mtime = 0;
};

struct AgentDirEntry {
  std::string name;
  AgentFileInfo info;
};

// The file's bytes; kResourceExhausted if it is larger than max_bytes, kInvalidArgument if it
// is not a regular file.
StatusOr<std::string> AgentReadFile(const AgentEndpoint& agent, const std::string& path,
                                    uint64_t max_bytes = kAgentReadDefaultMaxBytes);
StatusOr<std::string> AgentReadFile(int conn_fd, const std::string& path,
                                    uint64_t max_bytes = kAgentReadDefaultMaxBytes);

// Replaces the file atomically (a symlink at path is replaced, not followed). mode must stay
// within 0777 (setuid/setgid: kPermissionDenied). With parents, missing directories are made.
Status AgentWriteFile(const AgentEndpoint& agent, const std::string& path, std::string_view data,
                      uint32_t mode = 0644, bool parents = false);
Status AgentWriteFile(int conn_fd, const std::string& path, std::string_view data,
                      uint32_t mode = 0644, bool parents = false);

// Sorted by name.
StatusOr<std::vector<AgentDirEntry>> AgentListDir(const AgentEndpoint& agent,
                                                  const std::string& path);
StatusOr<std::vector<AgentDirEntry>> AgentListDir(int conn_fd, const std::string& path);

StatusOr<AgentFileInfo> AgentStat(const AgentEndpoint& agent, const std::string& path);
StatusOr<AgentFileInfo> AgentStat(int conn_fd, const std::string& path);

// kAlreadyExists if path exists (unless parents, which is `mkdir -p`).
Status AgentMkdir(const AgentEndpoint& agent, const std::string& path, bool parents = false);
Status AgentMkdir(int conn_fd, const std::string& path, bool parents = false);

// A non-empty directory needs recursive. /workspace itself cannot be removed.
Status AgentRemove(const AgentEndpoint& agent, const std::string& path, bool recursive = false);
Status AgentRemove(int conn_fd, const std::string& path, bool recursive = false);

// Replaces the one occurrence of old_str; none or several: kInvalidArgument with the message of
// Anthropic's text editor tool, and the file is left as it was.
Status AgentStrReplace(const AgentEndpoint& agent, const std::string& path,
                       const std::string& old_str, const std::string& new_str);
Status AgentStrReplace(int conn_fd, const std::string& path, const std::string& old_str,
                       const std::string& new_str);

}  // namespace agentbox
