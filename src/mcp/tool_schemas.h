// The tools agentbox offers over MCP: names, descriptions, input and output JSON Schemas.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace agentbox::mcp {

inline constexpr std::string_view kBashTool = "bash";
inline constexpr std::string_view kExecTool = "exec";
inline constexpr std::string_view kEditorTool = "str_replace_based_edit_tool";
inline constexpr std::string_view kReadFileTool = "read_file";
inline constexpr std::string_view kWriteFileTool = "write_file";
inline constexpr std::string_view kListFilesTool = "list_files";
inline constexpr std::string_view kProcessListTool = "process_list";
inline constexpr std::string_view kProcessOutputTool = "process_output";
inline constexpr std::string_view kProcessKillTool = "process_kill";
inline constexpr std::string_view kProcessStdinTool = "process_stdin";
// Snapshots of the workspace and the session log (snapshot_tool_schemas.cc).
inline constexpr std::string_view kSnapshotCreateTool = "snapshot_create";
inline constexpr std::string_view kSnapshotListTool = "snapshot_list";
inline constexpr std::string_view kSnapshotRestoreTool = "snapshot_restore";
inline constexpr std::string_view kSnapshotDiffTool = "snapshot_diff";
inline constexpr std::string_view kSnapshotDeleteTool = "snapshot_delete";
inline constexpr std::string_view kSessionLogTool = "session_log";

// True for the four tools of background processes above.
bool IsProcessTool(std::string_view name);
// True for the snapshot tools and session_log.
bool IsSnapshotTool(std::string_view name);

// The `tools` array of a tools/list result, in a stable order. Every tool carries all four
// annotations. openWorldHint is false for each when the session's sandbox has no network; with
// `open_world` (its allow_hosts is not empty) it is true for the tools that run commands (bash,
// exec), which can then reach the hosts the list opens.
const nlohmann::json& ToolDefinitions(bool open_world = false);

// True when `name` is one of the tools above.
bool IsKnownTool(std::string_view name);

}  // namespace agentbox::mcp
