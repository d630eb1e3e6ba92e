#include "mcp/tool_schemas.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

// The JSON result of CONTRACT §1: exec's structuredContent. Clients validate structuredContent
// against it, so it must match ExecResultToJson exactly.
constexpr const char* kExecResultSchema = R"json({
  "type": "object",
  "properties": {
    "exit_code": {"type": "integer"},
    "signal": {"type": ["integer", "null"]},
    "reason": {"type": "string", "enum": ["exited", "signaled", "timeout", "oom", "error"]},
    "error": {"type": "string"},
    "error_code": {"type": "string", "enum": ["invalid_argument", "not_found", "already_exists", "permission_denied", "resource_exhausted", "unavailable", "internal"]},
    "duration_ms": {"type": "number"},
    "cpu_ms": {"type": "number"},
    "peak_memory_bytes": {"type": "integer"},
    "stdout": {"type": "string"},
    "stderr": {"type": "string"},
    "stdout_truncated": {"type": "boolean"},
    "stderr_truncated": {"type": "boolean"},
    "limits_hit": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["exit_code", "signal", "reason", "stdout", "stderr", "limits_hit"]
})json";

constexpr const char* kTools = R"json([
{
  "name": "bash",
  "title": "Persistent bash shell",
  "description": "Run a bash command in the sandbox. The shell state persists between calls: the working directory, shell variables (exported or not), functions and aliases. stdout and stderr are returned together; a non-zero exit status and any limit the command ran into are reported after the output. A long output is cut in the middle (its start and end are kept) and saved whole in a file under /workspace/.agentbox/bash-output, named in the result. Commands cannot read stdin and have no network. Set restart to true to reset the shell (cwd back to /workspace, variables cleared).",
  "inputSchema": {
    "type": "object",
    "properties": {
      "command": {"type": "string", "description": "The bash command to run."},
      "restart": {"type": "boolean", "description": "Restart the shell instead of running a command."},
      "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 604800, "description": "Wall-clock limit of this call in seconds (default: the sandbox policy's, 60; at most the server's ceiling)."}
    }
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
},
{
  "name": "exec",
  "title": "Run one command",
  "description": "Run one command in the sandbox and return its full result: exit code, stdout, stderr, duration, memory, and the limits it hit. Give argv (run directly) or command (run with /bin/sh -c). A non-zero exit code is a normal result; a timeout or an out-of-memory kill is reported as an error.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "argv": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "The program and its arguments."},
      "command": {"type": "string", "description": "A shell command line, run with /bin/sh -c (when argv is not given)."},
      "cwd": {"type": "string", "description": "Working directory inside the sandbox (default /workspace)."},
      "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Extra environment variables."},
      "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 604800, "description": "Wall-clock limit in seconds (default: the sandbox policy's, 60; at most the server's ceiling, one week at most)."},
      "stdin": {"type": "string", "description": "Text given to the command on its stdin (default: none, /dev/null)."},
      "output_limit": {"type": ["integer", "string"], "description": "Bytes of stdout and of stderr kept, a number or a size such as \"64K\" (default: the sandbox policy's, 1M; at most the server's ceiling)."}
    }
  },
  "outputSchema": null,
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
},
{
  "name": "str_replace_based_edit_tool",
  "title": "View and edit files",
  "description": "View, create and edit files under /workspace.\n* view: shows a file with line numbers (cat -n), or lists a directory 2 levels deep (hidden items excluded); view_range [start, end] limits the lines (end -1 = to the end).\n* create: creates a new file with file_text; it cannot overwrite an existing file.\n* str_replace: replaces old_str, which must occur exactly once in the file, with new_str (empty or absent new_str deletes it).\n* insert: inserts new_str after line insert_line (0 = at the top).\nPaths are absolute, e.g. /workspace/src/main.py.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert"]},
      "path": {"type": "string", "description": "Absolute path of the file or directory, under /workspace."},
      "file_text": {"type": "string", "description": "create: the content of the new file."},
      "old_str": {"type": "string", "description": "str_replace: the exact text to replace."},
      "new_str": {"type": "string", "description": "str_replace: the replacement; insert: the text to insert."},
      "insert_line": {"type": "integer", "minimum": 0, "description": "insert: the line after which new_str goes."},
      "view_range": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2, "description": "view: [first line, last line], 1-based; -1 as last line means the end."},
      "max_characters": {"type": "integer", "minimum": 1, "description": "view: clip the file's content after this many characters (default 16000)."}
    },
    "required": ["command", "path"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
},
{
  "name": "read_file",
  "title": "Read a file",
  "description": "Read a file under /workspace and return its content as text (bytes that are not UTF-8 become U+FFFD).",
  "inputSchema": {
    "type": "object",
    "properties": {
      "path": {"type": "string", "description": "Path under /workspace (absolute, or relative to it)."},
      "max_bytes": {"type": "integer", "minimum": 1, "maximum": 16777216, "description": "Fail when the file is larger (default 10 MiB, at most 16 MiB)."}
    },
    "required": ["path"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
},
{
  "name": "write_file",
  "title": "Write a file",
  "description": "Write (create or replace, atomically) a file under /workspace. Missing parent directories are created.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "path": {"type": "string", "description": "Path under /workspace (absolute, or relative to it)."},
      "content": {"type": "string", "description": "The complete new content."},
      "mode": {"type": "integer", "minimum": 0, "maximum": 511, "description": "Permission bits, e.g. 493 for 0755 (default 420, 0644)."}
    },
    "required": ["path", "content"]
  },
  "outputSchema": {
    "type": "object",
    "properties": {"path": {"type": "string"}, "bytes_written": {"type": "integer"}},
    "required": ["path", "bytes_written"]
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false}
},
{
  "name": "list_files",
  "title": "List a directory",
  "description": "List the entries of a directory under /workspace: name, type (file, dir, symlink, other), size in bytes.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "path": {"type": "string", "description": "Directory under /workspace (default /workspace)."}
    }
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "path": {"type": "string"},
      "entries": {
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "name": {"type": "string"},
            "type": {"type": "string"},
            "size": {"type": "integer"},
            "mode": {"type": "integer"},
            "mtime": {"type": "integer"}
          },
          "required": ["name", "type", "size"]
        }
      }
    },
    "required": ["path", "entries"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
}
])json";

json BuildDefinitions() {
  json tools = json::parse(kTools, nullptr, /*allow_exceptions=*/false);
  json exec_schema = json::parse(kExecResultSchema, nullptr, /*allow_exceptions=*/false);
  if (!tools.is_array()) return json::array();  // a typo above; the unit test catches it
  for (json& tool : tools) {
    if (tool.value("name", "") == kExecTool) tool["outputSchema"] = exec_schema;
  }
  return tools;
}

}  // namespace

const json& ToolDefinitions() {
  static const json* const kDefinitions = new json(BuildDefinitions());
  return *kDefinitions;
}

bool IsKnownTool(std::string_view name) {
  for (const json& tool : ToolDefinitions()) {
    if (tool.value("name", "") == name) return true;
  }
  return false;
}

}  // namespace agentbox::mcp
