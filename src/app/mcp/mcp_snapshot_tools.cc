// The snapshot tools (snapshot_create, _list, _restore, _diff, _delete) and session_log, on the
// session's sandbox through its SandboxManager.
#include <nlohmann/json.hpp>

#include "app/mcp/mcp_tools.h"
#include "core/sandbox_manager.h"
#include "core/session_log.h"
#include "mcp/tool_results.h"
#include "mcp/tool_schemas.h"

namespace agentbox {
namespace {

using nlohmann::json;
namespace mcp = agentbox::mcp;

constexpr size_t kDiffListed = 1000;  // what a model reads in one answer
constexpr int64_t kDefaultLogRecords = 50;

// A string argument, or a tool error naming it.
StatusOr<std::string> StringArg(const json& arguments, const char* key, bool required) {
  if (!arguments.is_object() || !arguments.contains(key) || arguments[key].is_null()) {
    if (required)
      return InvalidArgument(std::string("invalid arguments: `") + key + "` is required");
    return std::string();
  }
  if (!arguments[key].is_string()) {
    return InvalidArgument(std::string("invalid arguments: `") + key + "` must be a string");
  }
  return arguments[key].get<std::string>();
}

json LastRecords(SandboxManager& manager, const SandboxRecord& record, const json& arguments) {
  int64_t last = kDefaultLogRecords;
  if (arguments.is_object() && arguments.contains("last")) {
    if (!arguments["last"].is_number_integer() || arguments["last"].get<int64_t>() < 1 ||
        arguments["last"].get<int64_t>() > 1000) {
      return mcp::StatusToolResult(
          InvalidArgument("invalid arguments: `last` must be an integer from 1 to 1000"));
    }
    last = arguments["last"].get<int64_t>();
  }
  auto text = manager.SessionLogText(record);
  if (!text.ok()) return mcp::StatusToolResult(text.status());
  auto log = ParseSessionLog(*text);
  if (!log.ok()) return mcp::StatusToolResult(log.status());
  const size_t total = log->records.size();
  const size_t from = total > static_cast<size_t>(last) ? total - static_cast<size_t>(last) : 0;
  json records = json::array();
  for (size_t i = from; i < total; ++i) records.push_back(log->records[i]);
  return mcp::StructuredToolResult({{"records", records}, {"total", total}});
}

json WithSnapshot(SandboxManager& manager, const SandboxRecord& record, const std::string& name,
                  const std::string& ref) {
  auto snap = manager.FindSnapshot(record, ref);
  if (!snap.ok()) return mcp::StatusToolResult(snap.status());
  if (name == mcp::kSnapshotRestoreTool) {
    auto stats = manager.Restore(record, *snap);
    if (!stats.ok()) return mcp::StatusToolResult(stats.status());
    return mcp::StructuredToolResult(json(RestoredJson(snap->id, record.id, *stats)));
  }
  if (name == mcp::kSnapshotDiffTool) {
    auto diff = manager.Diff(record, *snap, kDiffListed);
    if (!diff.ok()) return mcp::StatusToolResult(diff.status());
    return mcp::StructuredToolResult(json::parse(TreeDiffJson(*diff).dump()));
  }
  Status removed = manager.RemoveSnapshot(record, *snap);
  if (!removed.ok()) return mcp::StatusToolResult(removed);
  return mcp::StructuredToolResult({{"removed", snap->id}});
}

}  // namespace

json RunSnapshotTool(McpSession& session, const SandboxRecord& record, const std::string& name,
                     const json& arguments) {
  SandboxManager& manager = session.manager();
  if (name == mcp::kSessionLogTool) return LastRecords(manager, record, arguments);
  if (name == mcp::kSnapshotListTool) {
    json list = json::array();
    for (const SnapshotRecord& s : ListSnapshots(record)) list.push_back(SnapshotViewJson(s));
    return mcp::StructuredToolResult({{"snapshots", list}});
  }
  if (name == mcp::kSnapshotCreateTool) {
    auto snap_name = StringArg(arguments, "name", false);
    if (!snap_name.ok()) return mcp::StatusToolResult(snap_name.status());
    auto snap = manager.TakeSnapshot(record, *snap_name);
    if (!snap.ok()) return mcp::StatusToolResult(snap.status());
    return mcp::StructuredToolResult({{"snapshot", SnapshotViewJson(*snap)}});
  }
  auto ref = StringArg(arguments, "snapshot", true);
  if (!ref.ok()) return mcp::StatusToolResult(ref.status());
  return WithSnapshot(manager, record, name, *ref);
}

}  // namespace agentbox
