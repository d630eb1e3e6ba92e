// The pieces of HandleFileRequest (agent/file_ops.h): request field access and one function per
// file operation. Each returns the fields of its {"ok":true,...} response, or the error.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "agent/path_beneath.h"
#include "base/status.h"

namespace agentbox {

struct FileRequest {
  int conn_fd;                    // the connection: read_file writes kData frames to it,
                                  // write_file reads them from it
  const nlohmann::json& request;  // the kRequest object
  int workspace_fd;               // O_PATH|O_DIRECTORY fd of /workspace
};

// Field access that never throws: a missing optional field takes its default, a field of the
// wrong type is kInvalidArgument.
StatusOr<std::string> StringField(const nlohmann::json& request, const char* key);
StatusOr<bool> BoolField(const nlohmann::json& request, const char* key, bool fallback);
StatusOr<uint64_t> UintField(const nlohmann::json& request, const char* key, uint64_t fallback);
// The "path" field, parsed by ParseWorkspacePath().
StatusOr<WorkspacePath> PathField(const nlohmann::json& request);

// "file", "dir", "symlink" or "other".
const char* FileTypeName(mode_t mode);
// {type,size,mode,mtime} of a struct stat; mode is the permission bits, mtime in seconds.
nlohmann::json StatJson(const struct stat& st);

// file_content.cc
StatusOr<nlohmann::json> ReadFileOp(const FileRequest& r);
StatusOr<nlohmann::json> WriteFileOp(const FileRequest& r);
StatusOr<nlohmann::json> StrReplaceOp(const FileRequest& r);
// file_tree.cc
StatusOr<nlohmann::json> ListDirOp(const FileRequest& r);
StatusOr<nlohmann::json> StatOp(const FileRequest& r);
StatusOr<nlohmann::json> MkdirOp(const FileRequest& r);
StatusOr<nlohmann::json> RemoveOp(const FileRequest& r);

}  // namespace agentbox
