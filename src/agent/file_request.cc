#include "agent/file_request.h"

#include <sys/stat.h>

namespace agentbox {

StatusOr<std::string> StringField(const nlohmann::json& request, const char* key) {
  auto it = request.find(key);
  if (it == request.end() || !it->is_string()) {
    return InvalidArgument(std::string("request needs a string \"") + key + "\"");
  }
  return it->get<std::string>();
}

StatusOr<bool> BoolField(const nlohmann::json& request, const char* key, bool fallback) {
  auto it = request.find(key);
  if (it == request.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return InvalidArgument(std::string("\"") + key + "\" must be a boolean");
  return it->get<bool>();
}

StatusOr<uint64_t> UintField(const nlohmann::json& request, const char* key, uint64_t fallback) {
  auto it = request.find(key);
  if (it == request.end() || it->is_null()) return fallback;
  if (!it->is_number_unsigned()) {
    return InvalidArgument(std::string("\"") + key + "\" must be a non-negative integer");
  }
  return it->get<uint64_t>();
}

StatusOr<WorkspacePath> PathField(const nlohmann::json& request) {
  AB_ASSIGN_OR_RETURN(std::string path, StringField(request, "path"));
  return ParseWorkspacePath(path);
}

const char* FileTypeName(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "dir";
  if (S_ISLNK(mode)) return "symlink";
  return "other";
}

nlohmann::json StatJson(const struct stat& st) {
  return {{"type", FileTypeName(st.st_mode)},
          {"size", static_cast<uint64_t>(st.st_size)},
          {"mode", static_cast<uint32_t>(st.st_mode & 07777)},
          {"mtime", static_cast<int64_t>(st.st_mtim.tv_sec)}};
}

}  // namespace agentbox
