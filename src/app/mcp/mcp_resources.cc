// Workspace files as MCP resources: resources/list walks /workspace through the sandbox's agent
// (sorted, depth first, files only, paginated), resources/read reads one file by its
// file:///workspace/... URI, resources/templates/list offers the one URI template. The agent
// confines every path beneath /workspace, as for the file tools; the URI rules are in
// mcp/resources.h.
#include <algorithm>
#include <vector>

#include "app/mcp/mcp_server_impl.h"
#include "core/agent_files.h"
#include "mcp/resources.h"

namespace agentbox {

using nlohmann::json;
namespace mcp = agentbox::mcp;

namespace {

constexpr int kMaxDepth = 32;

// The workspace's files in sorted depth-first order, as paths relative to /workspace, until
// `want` are found (or kMaxListedResources). Unreadable directories are skipped.
void Walk(const AgentEndpoint& socket, const std::string& relative, int depth, size_t want,
          std::vector<std::pair<std::string, uint64_t>>* files) {
  auto entries = AgentListDir(socket, relative.empty() ? "/workspace" : "/workspace/" + relative);
  if (!entries.ok()) return;
  std::sort(entries->begin(), entries->end(),
            [](const AgentDirEntry& a, const AgentDirEntry& b) { return a.name < b.name; });
  for (const AgentDirEntry& entry : *entries) {
    if (files->size() >= want) return;
    const std::string path = relative.empty() ? entry.name : relative + "/" + entry.name;
    if (entry.info.type == "file") files->emplace_back(path, entry.info.size);
    if (entry.info.type == "dir" && depth < kMaxDepth) Walk(socket, path, depth + 1, want, files);
  }
}

McpAnswer SandboxError(const Status& status) {
  return McpAnswer::Error(mcp::kInternalError, "the session's sandbox: " + status.message());
}

McpAnswer BadCursor() {
  return McpAnswer::Error(mcp::kInvalidParams, "Invalid params: unknown `cursor`");
}

}  // namespace

McpAnswer ListResources(McpSession& session, const json& params, bool modern) {
  size_t offset = 0;
  if (params.contains("cursor")) {
    const json cursor = params["cursor"];
    std::optional<size_t> decoded =
        cursor.is_string() ? mcp::DecodeCursor(cursor.get<std::string>()) : std::nullopt;
    if (!decoded) return BadCursor();
    offset = *decoded;
  }
  auto record = session.Sandbox();
  if (!record.ok()) return SandboxError(record.status());
  std::vector<std::pair<std::string, uint64_t>> files;
  const size_t want = std::min(offset + mcp::kResourcePageSize + 1, mcp::kMaxListedResources);
  Walk(record->agent(), "", 0, want, &files);
  McpAnswer answer = McpAnswer::Ok({{"resources", json::array()}});
  for (size_t i = offset; i < files.size() && i < offset + mcp::kResourcePageSize; ++i) {
    answer.result["resources"].push_back(mcp::ResourceEntry(files[i].first, files[i].second));
  }
  if (files.size() > offset + mcp::kResourcePageSize) {
    answer.result["nextCursor"] = mcp::EncodeCursor(offset + mcp::kResourcePageSize);
  }
  // A workspace changes under every command: nothing is fresh, and it is this caller's own.
  if (modern) mcp::AddCacheHints(&answer.result, 0, /*is_public=*/false);
  return answer;
}

McpAnswer ListResourceTemplates(const json& params, bool modern) {
  if (params.contains("cursor")) return BadCursor();  // one page only
  McpAnswer answer =
      McpAnswer::Ok({{"resourceTemplates", json::array({mcp::WorkspaceTemplate()})}});
  if (modern) mcp::AddCacheHints(&answer.result, 3600000, /*is_public=*/true);
  return answer;
}

McpAnswer ReadResource(McpSession& session, const json& params, bool modern) {
  const json uri = params.value("uri", json());
  if (!uri.is_string())
    return McpAnswer::Error(mcp::kInvalidParams, "Invalid params: `uri` must be a string");
  const std::string text = uri.get<std::string>();
  // 2025 revisions: -32002 for a resource that is not there; 2026-07-28: -32602, as for any
  // parameter naming nothing.
  auto not_found = [&](const std::string& why) {
    return McpAnswer::Error(modern ? mcp::kInvalidParams : mcp::kResourceNotFound,
                            "Resource not found: " + why, {{"uri", text}});
  };
  auto path = mcp::WorkspacePathOfUri(text);
  if (!path.ok()) return not_found(path.status().message());
  auto record = session.Sandbox();
  if (!record.ok()) return SandboxError(record.status());
  auto info = AgentStat(record->agent(), *path);
  if (!info.ok()) return not_found(info.status().message());
  if (info->type != "file") return not_found(*path + " is not a regular file");
  if (info->size > mcp::kMaxResourceBytes) {
    return McpAnswer::Error(mcp::kInvalidParams,
                            *path + " is " + std::to_string(info->size) +
                                " bytes, over the 4 MiB a resource may be: read it in parts "
                                "with the read_file tool or bash");
  }
  auto bytes = AgentReadFile(record->agent(), *path, mcp::kMaxResourceBytes);
  if (!bytes.ok()) return not_found(bytes.status().message());
  McpAnswer answer =
      McpAnswer::Ok({{"contents", json::array({mcp::ResourceContents(text, *path, *bytes)})}});
  if (modern) mcp::AddCacheHints(&answer.result, 0, /*is_public=*/false);
  return answer;
}

}  // namespace agentbox
