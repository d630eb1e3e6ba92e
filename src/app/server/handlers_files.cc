// /v1/sandboxes/{id}/files: the sandbox's /workspace through its agent (core/agent_files.h).
#include <nlohmann/json.hpp>

#include "app/server/server_context.h"
#include "core/agent_files.h"
#include "core/sandbox_activity.h"

namespace agentbox {
namespace {

// A sandbox the caller may see and that runs, plus the "path" parameter.
struct FileTarget {
  SandboxRecord record;
  std::string path;
};

StatusOr<FileTarget> Target(ServerContext& ctx, Exchange& ex, const std::string& path) {
  AB_ASSIGN_OR_RETURN(SandboxStatus found, FindVisible(ctx, ex.caller, ex.Param("id")));
  if (path.empty()) return InvalidArgument("the \"path\" parameter is required");
  if (found.state != SandboxState::kRunning) {
    return Unavailable("sandbox " + found.record.id + " is dead");
  }
  MarkActive(found.record);  // a file operation is a use (the idle timeout)
  return FileTarget{found.record, path};
}

StatusOr<uint32_t> ParseMode(const std::string& text) {
  if (text.empty()) return 0644u;
  char* end = nullptr;
  unsigned long mode = std::strtoul(text.c_str(), &end, 8);
  if (*end != '\0' || mode > 0777) return InvalidArgument("\"mode\" must be octal, at most 0777");
  return static_cast<uint32_t>(mode);
}

nlohmann::json Listing(const std::string& path, const std::vector<AgentDirEntry>& entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const AgentDirEntry& e : entries) {
    list.push_back({{"name", e.name},
                    {"type", e.info.type},
                    {"size", e.info.size},
                    {"mode", e.info.mode},
                    {"mtime", e.info.mtime}});
  }
  return {{"path", path}, {"entries", list}};
}

}  // namespace

void HandleReadFile(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, ex.request.Query("path"));
  if (!target.ok()) return ex.ReplyError(target.status());
  if (ex.request.QueryFlag("list")) {
    auto entries = AgentListDir(target->record.agent(), target->path);
    if (!entries.ok()) return ex.ReplyError(entries.status());
    return ex.ReplyJson(200, Listing(target->path, *entries));
  }
  auto data = AgentReadFile(target->record.agent(), target->path, kMaxFileBody);
  if (!data.ok()) return ex.ReplyError(data.status());
  ex.Reply(200, "application/octet-stream", *data);
}

void HandleWriteFile(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, ex.request.Query("path"));
  if (!target.ok()) return ex.ReplyError(target.status());
  auto mode = ParseMode(ex.request.Query("mode"));
  if (!mode.ok()) return ex.ReplyError(mode.status());
  bool parents = ex.request.Query("parents").empty() || ex.request.QueryFlag("parents");
  Status st = ctx.Manager().WriteWorkspaceFile(target->record, target->path, ex.request.body, *mode,
                                               parents);
  if (!st.ok()) return ex.ReplyError(st);
  ex.ReplyJson(200, {{"path", target->path}, {"bytes", ex.request.body.size()}});
}

void HandleDeleteFile(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex, ex.request.Query("path"));
  if (!target.ok()) return ex.ReplyError(target.status());
  Status st = ctx.Manager().RemoveWorkspacePath(target->record, target->path,
                                                ex.request.QueryFlag("recursive"));
  if (!st.ok()) return ex.ReplyError(st);
  ex.ReplyJson(200, {{"removed", target->path}});
}

void HandleEditFile(ServerContext& ctx, Exchange& ex) {
  auto json = ParseJsonBody(ex.request);
  if (!json.ok()) return ex.ReplyError(json.status());
  for (const char* key : {"path", "old_str", "new_str"}) {
    if (!json->contains(key) || !(*json)[key].is_string()) {
      return ex.ReplyError(InvalidArgument(std::string("\"") + key + "\" must be a string"));
    }
  }
  if (json->size() != 3) return ex.ReplyError(InvalidArgument("unknown key in the body"));
  auto target = Target(ctx, ex, (*json)["path"].get<std::string>());
  if (!target.ok()) return ex.ReplyError(target.status());
  Status st = ctx.Manager().ReplaceWorkspaceText(target->record, target->path, (*json)["old_str"],
                                                 (*json)["new_str"]);
  if (!st.ok()) return ex.ReplyError(st);
  ex.ReplyJson(200, {{"path", target->path}});
}

}  // namespace agentbox
