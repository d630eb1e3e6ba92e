#include "core/agent_files.h"

#include <nlohmann/json.hpp>
#include <type_traits>

#include "core/agent_client.h"
#include "proto/agent_protocol.h"

namespace agentbox {
namespace {

using Json = nlohmann::json;

// Sends one request (then `upload`) and reads the answer; kData frames before it are collected
// in *download, at most download_limit bytes (more is refused).
StatusOr<Json> Call(int fd, const Json& request, std::string_view upload = {},
                    std::string* download = nullptr, uint64_t download_limit = 0) {
  AgentFrameSink sink;
  if (download) {
    sink = [download, download_limit](const Frame& frame) -> Status {
      if (frame.type != FrameType::kData) return Internal("unexpected frame from the agent");
      if (frame.payload.size() > download_limit - download->size()) {
        return Internal("the agent sent more data than requested");
      }
      download->append(frame.payload);
      return OkStatus();
    };
  }
  return CallAgent(fd, request, upload, sink);
}

template <typename T>
bool GetField(const Json& j, const char* key, T* out) {
  auto it = j.find(key);
  if (it == j.end()) return false;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return false;
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!it->is_number_unsigned()) return false;
  } else {
    if (!it->is_number_integer()) return false;
  }
  *out = it->get<T>();
  return true;
}

StatusOr<AgentFileInfo> InfoFromJson(const Json& j) {
  AgentFileInfo info;
  if (!GetField(j, "type", &info.type) || !GetField(j, "size", &info.size) ||
      !GetField(j, "mode", &info.mode) || !GetField(j, "mtime", &info.mtime)) {
    return Internal("malformed file information from the agent");
  }
  return info;
}

StatusOr<std::vector<AgentDirEntry>> EntriesFromJson(const Json& response) {
  auto it = response.find("entries");
  if (it == response.end() || !it->is_array()) return Internal("malformed list from the agent");
  std::vector<AgentDirEntry> entries;
  for (const Json& item : *it) {
    if (!item.is_object()) return Internal("malformed list entry from the agent");
    AgentDirEntry entry;
    if (!GetField(item, "name", &entry.name)) return Internal("list entry without a name");
    AB_ASSIGN_OR_RETURN(entry.info, InfoFromJson(item));
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Runs `op` on a fresh connection to the agent.
template <typename Op>
auto WithConnection(const AgentEndpoint& agent, Op op) -> decltype(op(0)) {
  AB_ASSIGN_OR_RETURN(UniqueFd fd, ConnectAgent(agent));
  return op(fd.get());
}

}  // namespace

StatusOr<std::string> AgentReadFile(int conn_fd, const std::string& path, uint64_t max_bytes) {
  std::string data;
  Json request = {{"op", "read_file"}, {"path", path}, {"max_bytes", max_bytes}};
  AB_ASSIGN_OR_RETURN(Json response, Call(conn_fd, request, {}, &data, max_bytes));
  uint64_t size = 0;
  if (!GetField(response, "size", &size) || size != data.size()) {
    return Internal("the agent's read_file size does not match the data it sent");
  }
  return data;
}

StatusOr<std::string> AgentReadFile(const AgentEndpoint& agent, const std::string& path,
                                    uint64_t max_bytes) {
  return WithConnection(agent, [&](int fd) { return AgentReadFile(fd, path, max_bytes); });
}

Status AgentWriteFile(int conn_fd, const std::string& path, std::string_view data, uint32_t mode,
                      bool parents) {
  Json request = {{"op", "write_file"},
                  {"path", path},
                  {"size", data.size()},
                  {"mode", mode},
                  {"parents", parents}};
  return Call(conn_fd, request, data).status();
}

Status AgentWriteFile(const AgentEndpoint& agent, const std::string& path, std::string_view data,
                      uint32_t mode, bool parents) {
  return WithConnection(agent,
                        [&](int fd) { return AgentWriteFile(fd, path, data, mode, parents); });
}

StatusOr<std::vector<AgentDirEntry>> AgentListDir(int conn_fd, const std::string& path) {
  AB_ASSIGN_OR_RETURN(Json response, Call(conn_fd, {{"op", "list_dir"}, {"path", path}}));
  return EntriesFromJson(response);
}

StatusOr<std::vector<AgentDirEntry>> AgentListDir(const AgentEndpoint& agent,
                                                  const std::string& path) {
  return WithConnection(agent, [&](int fd) { return AgentListDir(fd, path); });
}

StatusOr<AgentFileInfo> AgentStat(int conn_fd, const std::string& path) {
  AB_ASSIGN_OR_RETURN(Json response, Call(conn_fd, {{"op", "stat"}, {"path", path}}));
  return InfoFromJson(response);
}

StatusOr<AgentFileInfo> AgentStat(const AgentEndpoint& agent, const std::string& path) {
  return WithConnection(agent, [&](int fd) { return AgentStat(fd, path); });
}

Status AgentMkdir(int conn_fd, const std::string& path, bool parents) {
  return Call(conn_fd, {{"op", "mkdir"}, {"path", path}, {"parents", parents}}).status();
}

Status AgentMkdir(const AgentEndpoint& agent, const std::string& path, bool parents) {
  return WithConnection(agent, [&](int fd) { return AgentMkdir(fd, path, parents); });
}

Status AgentRemove(int conn_fd, const std::string& path, bool recursive) {
  return Call(conn_fd, {{"op", "remove"}, {"path", path}, {"recursive", recursive}}).status();
}

Status AgentRemove(const AgentEndpoint& agent, const std::string& path, bool recursive) {
  return WithConnection(agent, [&](int fd) { return AgentRemove(fd, path, recursive); });
}

Status AgentStrReplace(int conn_fd, const std::string& path, const std::string& old_str,
                       const std::string& new_str) {
  Json request = {{"op", "str_replace"}, {"path", path}, {"old", old_str}, {"new", new_str}};
  return Call(conn_fd, request).status();
}

Status AgentStrReplace(const AgentEndpoint& agent, const std::string& path,
                       const std::string& old_str, const std::string& new_str) {
  return WithConnection(agent, [&](int fd) { return AgentStrReplace(fd, path, old_str, new_str); });
}

}  // namespace agentbox
