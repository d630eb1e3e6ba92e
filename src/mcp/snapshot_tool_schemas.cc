// The snapshot and session-log tools' definitions (tool_schemas.h lists them with the others).
#include "mcp/snapshot_tool_schemas.h"

namespace agentbox::mcp {
namespace {

constexpr const char* kSnapshotToolsJson = R"json([
{
  "name": "snapshot_create",
  "title": "Snapshot the workspace",
  "description": "Take a snapshot of /workspace as it is now (files only: not processes, /tmp or memory) and return its id. Use snapshot_restore to go back to it, snapshot_diff to see what changed since. A sandbox holds a limited number of snapshots (its policy's max_snapshots, 16 by default): delete old ones with snapshot_delete.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "name": {"type": "string", "description": "An optional name, unique among this sandbox's snapshots (letters, digits, _ . -)."}
    }
  },
  "outputSchema": {"type": "object", "properties": {"snapshot": SNAPSHOT}, "required": ["snapshot"]},
  "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}
},
{
  "name": "snapshot_list",
  "title": "List snapshots",
  "description": "List the snapshots of this sandbox's /workspace, oldest first.",
  "inputSchema": {"type": "object", "properties": {}},
  "outputSchema": {"type": "object", "properties": {"snapshots": {"type": "array", "items": SNAPSHOT}}, "required": ["snapshots"]},
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
},
{
  "name": "snapshot_restore",
  "title": "Restore a snapshot",
  "description": "Put /workspace back exactly as the snapshot holds it: files created since are deleted, changed ones put back, deleted ones brought back. Refused while a background process runs (stop it first with process_kill).",
  "inputSchema": {
    "type": "object",
    "properties": {"snapshot": {"type": "string", "description": "The snapshot's id (or a unique prefix of it) or name."}},
    "required": ["snapshot"]
  },
  "outputSchema": {
    "type": "object",
    "properties": {"restored": {"type": "string"}, "kept": {"type": "integer"}, "copied": {"type": "integer"}, "removed": {"type": "integer"}},
    "required": ["restored"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false}
},
{
  "name": "snapshot_diff",
  "title": "What changed since a snapshot",
  "description": "List the paths of /workspace created, modified (content, mode or owner) or deleted since the snapshot, with size changes; a directory created or deleted is one entry.",
  "inputSchema": {
    "type": "object",
    "properties": {"snapshot": {"type": "string", "description": "The snapshot's id (or a unique prefix of it) or name."}},
    "required": ["snapshot"]
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "changes": {"type": "array", "items": {"type": "object", "properties": {
        "path": {"type": "string"}, "change": {"type": "string", "enum": ["created", "modified", "deleted"]},
        "type": {"type": "string"}, "size_delta": {"type": "integer"}}}},
      "created": {"type": "integer"}, "modified": {"type": "integer"}, "deleted": {"type": "integer"},
      "truncated": {"type": "boolean"}
    },
    "required": ["changes", "created", "modified", "deleted", "truncated"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
},
{
  "name": "snapshot_delete",
  "title": "Delete a snapshot",
  "description": "Delete a snapshot of this sandbox (the workspace itself is not touched).",
  "inputSchema": {
    "type": "object",
    "properties": {"snapshot": {"type": "string", "description": "The snapshot's id (or a unique prefix of it) or name."}},
    "required": ["snapshot"]
  },
  "outputSchema": {"type": "object", "properties": {"removed": {"type": "string"}}, "required": ["removed"]},
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
},
{
  "name": "session_log",
  "title": "Read the session log",
  "description": "Return the last records of this sandbox's session log: every command and file operation so far, each with its exit code, output digests and the workspace digest before and after.",
  "inputSchema": {
    "type": "object",
    "properties": {"last": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "How many of the latest records (default 50)."}}
  },
  "outputSchema": {"type": "object", "properties": {"records": {"type": "array", "items": {"type": "object"}}, "total": {"type": "integer"}}, "required": ["records", "total"]},
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
}
])json";

constexpr const char* kSnapshotSchemaJson = R"json({
  "type": "object",
  "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}, "sandbox": {"type": "string"},
    "created_at": {"type": "string"}, "workspace_digest": {"type": ["string", "null"]}
  },
  "required": ["id", "name", "sandbox", "created_at"]
})json";

}  // namespace

const char* SnapshotToolsJson() { return kSnapshotToolsJson; }
const char* SnapshotSchemaJson() { return kSnapshotSchemaJson; }

}  // namespace agentbox::mcp
