// The file tools: str_replace_based_edit_tool, read_file, write_file, list_files. Every path
// goes to the sandbox's agent, which resolves it strictly beneath /workspace; an escaping path
// comes back as a permission error and becomes a tool error.
#include <algorithm>

#include "app/mcp/mcp_tools.h"
#include "base/utf8.h"
#include "core/agent_files.h"
#include "core/sandbox_manager.h"
#include "mcp/text_editor.h"
#include "mcp/tool_args.h"
#include "mcp/tool_results.h"
#include "mcp/tool_schemas.h"

namespace agentbox {
namespace {

using nlohmann::json;
namespace mcp = agentbox::mcp;

json Error(const std::string& text) { return mcp::TextToolResult(text, true); }

// The sandbox a tool works on: reads go to its agent, writes through the manager (the session
// log records them).
struct Target {
  SandboxManager& manager;
  const SandboxRecord& record;
  const AgentEndpoint& socket;
};

// Names beginning with "." are left out, like the reference's `find -not -path '*/\.*'`.
bool Hidden(const std::string& name) { return !name.empty() && name[0] == '.'; }

json ViewDirectory(const AgentEndpoint& socket, const mcp::EditorToolArgs& args) {
  if (!args.view_range.is_null()) {
    return Error("The `view_range` parameter is not allowed when `path` points to a directory.");
  }
  auto top = AgentListDir(socket, args.path);
  if (!top.ok()) return mcp::StatusToolResult(top.status());
  std::vector<std::string> paths;
  for (const AgentDirEntry& entry : *top) {
    if (Hidden(entry.name)) continue;
    paths.push_back(entry.name);
    if (entry.info.type != "dir") continue;
    auto below = AgentListDir(socket, args.path + "/" + entry.name);
    if (!below.ok()) continue;  // unreadable: listed, not descended into
    for (const AgentDirEntry& child : *below) {
      if (!Hidden(child.name)) paths.push_back(entry.name + "/" + child.name);
    }
  }
  std::sort(paths.begin(), paths.end());
  return mcp::TextToolResult(mcp::EditorViewDirectory(args.path, paths));
}

json ViewPath(const AgentEndpoint& socket, const mcp::EditorToolArgs& args,
              const AgentFileInfo& info) {
  if (info.type == "dir") return ViewDirectory(socket, args);
  auto content = AgentReadFile(socket, args.path);
  if (!content.ok()) return mcp::StatusToolResult(content.status());
  auto text = mcp::EditorViewFile(*content, args.path, args.view_range,
                                  args.max_characters.value_or(mcp::kMaxEditorResponse));
  return text.ok() ? mcp::TextToolResult(*text) : mcp::StatusToolResult(text.status());
}

// Read, edit in memory, write back with the file's own mode (an edit keeps a script executable).
json EditFile(const Target& t, const mcp::EditorToolArgs& args, const AgentFileInfo& info) {
  auto content = AgentReadFile(t.socket, args.path);
  if (!content.ok()) return mcp::StatusToolResult(content.status());
  StatusOr<mcp::EditorEdit> edit =
      args.command == "insert"
          ? mcp::EditorInsert(*content, args.path, *args.insert_line, *args.new_str)
          : mcp::EditorStrReplace(*content, args.path, *args.old_str, args.new_str.value_or(""));
  if (!edit.ok()) return mcp::StatusToolResult(edit.status());
  Status written =
      t.manager.WriteWorkspaceFile(t.record, args.path, edit->new_content, info.mode & 0777,
                                   /*parents=*/false);
  if (!written.ok()) return mcp::StatusToolResult(written);
  return mcp::TextToolResult(edit->message);
}

json CreateFile(const Target& t, const mcp::EditorToolArgs& args) {
  if (!args.file_text) return Error(mcp::EditorMissingParameter("file_text", "create"));
  auto existing = AgentStat(t.socket, args.path);
  if (existing.ok()) return Error(mcp::EditorFileExists(args.path));
  if (existing.status().code() != StatusCode::kNotFound) {
    return mcp::StatusToolResult(existing.status());
  }
  Status written = t.manager.WriteWorkspaceFile(t.record, args.path, *args.file_text, 0644,
                                                /*parents=*/true);
  if (!written.ok()) return mcp::StatusToolResult(written);
  return mcp::TextToolResult(mcp::EditorCreated(args.path));
}

// The parameters each command needs, checked before the file is touched.
std::string MissingParameter(const mcp::EditorToolArgs& args) {
  if (args.command == "str_replace" && !args.old_str) {
    return mcp::EditorMissingParameter("old_str", args.command);
  }
  if (args.command == "insert" && !args.insert_line) {
    return mcp::EditorMissingParameter("insert_line", args.command);
  }
  if (args.command == "insert" && !args.new_str) {
    return mcp::EditorMissingParameter("new_str", args.command);
  }
  return "";
}

json RunReadFile(const AgentEndpoint& socket, const mcp::FileToolArgs& args) {
  auto content =
      AgentReadFile(socket, args.path, args.max_bytes.value_or(kAgentReadDefaultMaxBytes));
  if (!content.ok()) return mcp::StatusToolResult(content.status());
  return mcp::TextToolResult(*content);
}

json RunWriteFile(const Target& t, const mcp::FileToolArgs& args) {
  Status written = t.manager.WriteWorkspaceFile(t.record, args.path, args.content, args.mode,
                                                /*parents=*/true);
  if (!written.ok()) return mcp::StatusToolResult(written);
  return mcp::StructuredToolResult({{"path", args.path}, {"bytes_written", args.content.size()}});
}

json RunListFiles(const AgentEndpoint& socket, const mcp::FileToolArgs& args) {
  auto entries = AgentListDir(socket, args.path);
  if (!entries.ok()) return mcp::StatusToolResult(entries.status());
  json list = json::array();
  for (const AgentDirEntry& e : *entries) {
    list.push_back({{"name", SanitizeUtf8(e.name)},
                    {"type", e.info.type},
                    {"size", e.info.size},
                    {"mode", e.info.mode},
                    {"mtime", e.info.mtime}});
  }
  return mcp::StructuredToolResult({{"path", args.path}, {"entries", std::move(list)}});
}

}  // namespace

json RunEditorTool(SandboxManager& manager, const SandboxRecord& record, const json& arguments) {
  const AgentEndpoint& socket = record.agent();
  const Target target{manager, record, socket};
  auto args = mcp::ParseEditorToolArgs(arguments);
  if (!args.ok()) return mcp::StatusToolResult(args.status());
  const std::string& command = args->command;
  if (command != "view" && command != "create" && command != "str_replace" && command != "insert") {
    return Error(mcp::EditorUnknownCommand(command));
  }
  if (std::string bad = mcp::EditorPathError(args->path); !bad.empty()) return Error(bad);
  if (command == "create") return CreateFile(target, *args);
  if (std::string missing = MissingParameter(*args); !missing.empty()) return Error(missing);
  auto info = AgentStat(socket, args->path);
  if (!info.ok()) {
    if (info.status().code() == StatusCode::kNotFound)
      return Error(mcp::EditorNoSuchPath(args->path));
    return mcp::StatusToolResult(info.status());
  }
  if (command == "view") return ViewPath(socket, *args, *info);
  if (info->type == "dir") return Error(mcp::EditorDirectoryNotEditable(args->path));
  return EditFile(target, *args, *info);
}

json RunFileTool(SandboxManager& manager, const SandboxRecord& record, const std::string& name,
                 const json& arguments) {
  auto args = mcp::ParseFileToolArgs(name, arguments);
  if (!args.ok()) return mcp::StatusToolResult(args.status());
  if (name == mcp::kReadFileTool) return RunReadFile(record.agent(), *args);
  if (name == mcp::kWriteFileTool) return RunWriteFile({manager, record, record.agent()}, *args);
  return RunListFiles(record.agent(), *args);
}

}  // namespace agentbox
