// Workspace files as MCP resources, the pure part: `file:///workspace/PATH` URIs (RFC 8089, each
// path segment percent-encoded) and back, the one resource template, MIME types by extension,
// text-or-blob contents, list entries and the list's opaque cursor. The walk and the reads go
// through the sandbox's agent (app/mcp/mcp_resources.cc), which confines every path beneath
// /workspace as it does for the file tools.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox::mcp {

inline constexpr std::string_view kWorkspaceUriPrefix = "file:///workspace/";
// resources/list: entries per page, and the most files one listing walks to (a workspace with
// node_modules holds far more; a client reads any of them through the template).
inline constexpr size_t kResourcePageSize = 100;
inline constexpr size_t kMaxListedResources = 10000;
// resources/read: the largest file served (its blob is a third larger again).
inline constexpr uint64_t kMaxResourceBytes = 4u << 20;

// "a b/c.txt" (relative to /workspace) -> "file:///workspace/a%20b/c.txt".
std::string WorkspaceUri(std::string_view relative_path);

// The absolute path inside the sandbox ("/workspace/a b/c.txt") a resource URI names.
// kInvalidArgument for another scheme or place, a bad %-escape, a NUL, or a "." or ".." segment.
StatusOr<std::string> WorkspacePathOfUri(std::string_view uri);

// A MIME type for the file name by its extension; "text/plain" when unknown (the text-or-blob
// choice is made from the content, not from this).
std::string MimeTypeOf(std::string_view name);

// One entry of resources/list: uri, name (the path below /workspace), mimeType, size.
nlohmann::json ResourceEntry(std::string_view relative_path, uint64_t size);

// resources/templates/list's one template: file:///workspace/{+path}.
nlohmann::json WorkspaceTemplate();

// The contents of one read: {uri, mimeType, text} for valid UTF-8 without NUL bytes, else
// {uri, mimeType (application/octet-stream when the extension says text), blob: base64}.
nlohmann::json ResourceContents(std::string_view uri, std::string_view name,
                                const std::string& bytes);

// The list cursor: the index of the next entry, as opaque text. nullopt for text it never gave.
std::string EncodeCursor(size_t next);
std::optional<size_t> DecodeCursor(std::string_view cursor);

}  // namespace agentbox::mcp
