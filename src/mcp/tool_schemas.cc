#include "mcp/tool_schemas.h"

#include <string>

#include "mcp/snapshot_tool_schemas.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

// The JSON result of docs/contract.md §1: exec's structuredContent. Clients validate
// structuredContent against it, so it must match ExecResultToJson exactly.
constexpr const char* kExecResultSchema = R"json({
  "type": "object",
  "properties": {
    "exit_code": {"type": "integer"},
    "signal": {"type": ["integer", "null"]},
    "reason": {"type": "string", "enum": ["exited", "signaled", "timeout", "oom", "error"]},
    "error": {"type": "string"},
    "error_code": {"type": "string", "enum": ["invalid_argument", "not_found", "already_exists", "failed_precondition", "permission_denied", "resource_exhausted", "unavailable", "internal"]},
    "duration_ms": {"type": "number"},
    "cpu_ms": {"type": "number"},
    "peak_memory_bytes": {"type": "integer"},
    "stdout": {"type": "string"},
    "stderr": {"type": "string"},
    "stdout_truncated": {"type": "boolean"},
    "stderr_truncated": {"type": "boolean"},
    "limits_hit": {"type": "array", "items": {"type": "string"}},
    "network": {"type": "object", "properties": {
      "egress": {"type": "boolean"},
      "connections": {"type": "array", "items": {"type": "object", "properties": {
        "kind": {"type": "string", "enum": ["connect", "lookup"]},
        "host": {"type": "string"}, "port": {"type": "integer"}, "allowed": {"type": "boolean"},
        "address": {"type": ["string", "null"]}, "bytes_sent": {"type": "integer"},
        "bytes_received": {"type": "integer"}, "reason": {"type": "string"}}}},
      "connections_dropped": {"type": "integer"}}},
    "effects": {"type": "object", "properties": {
      "workspace": {"type": "object", "properties": {
        "observed": {"type": "boolean"}, "reason": {"type": "string"}, "partial": {"type": "boolean"},
        "created": {"type": "integer"}, "modified": {"type": "integer"}, "deleted": {"type": "integer"},
        "size_delta": {"type": "integer"},
        "changes": {"type": "array", "items": {"type": "object", "properties": {
          "path": {"type": "string"}, "change": {"type": "string", "enum": ["created", "modified", "deleted"]},
          "type": {"type": "string", "enum": ["file", "dir", "symlink", "other"]},
          "size_delta": {"type": "integer"}}}},
        "changes_omitted": {"type": "integer"}}},
      "walls": {"type": "array", "items": {"type": "object", "properties": {
        "wall": {"type": "string", "enum": ["seccomp", "read_only_root", "permission", "pid_namespace", "network", "limit"]},
        "what": {"type": "string"}, "count": {"type": "integer"}, "errno": {"type": "string"},
        "rule": {"type": "string"}, "process": {"type": "string"},
        "seen_by": {"type": "string", "enum": ["seccomp_notification", "stderr", "egress_proxy", "dns_catcher", "supervisor"]},
        "message": {"type": "string"}}}},
      "walls_omitted": {"type": "integer"},
      "syscalls_observed": {"type": "boolean"},
      "syscalls_reason": {"type": "string"},
      "processes_started": {"type": ["integer", "null"]},
      "bytes_written": {"type": ["integer", "null"]}}},
    "rollback": {"type": "object", "properties": {
      "rolled_back": {"type": "boolean"}, "error": {"type": "string"}}}
  },
  "required": ["exit_code", "signal", "reason", "stdout", "stderr", "limits_hit"]
})json";

// A background process as ProcessInfoToJson has it: exec's `background` result, and the
// `process` of the process tools. Its `result` (once exited) is the exec result without stdout
// and stderr (the output is the process's own, read with process_output).
constexpr const char* kProcessInfoSchema = R"json({
  "type": "object",
  "properties": {
    "id": {"type": "string"},
    "argv": {"type": "array", "items": {"type": "string"}},
    "state": {"type": "string", "enum": ["running", "exited"]},
    "started_at": {"type": "number"},
    "stdin_open": {"type": "boolean"},
    "output_bytes": {"type": "integer"},
    "dropped_bytes": {"type": "integer"},
    "result": {"type": ["object", "null"]}
  },
  "required": ["id", "argv", "state", "started_at", "stdin_open", "output_bytes", "dropped_bytes", "result"]
})json";

constexpr const char* kTools = R"json([
{
  "name": "bash",
  "title": "Persistent bash shell",
  "description": "Run a bash command in the sandbox. The shell state persists between calls: the working directory, shell variables (exported or not), functions and aliases. stdout and stderr are returned together; a non-zero exit status and any limit the command ran into are reported after the output. A long output is cut in the middle (its start and end are kept) and saved whole in a file under /workspace/.agentbox/bash-output, named in the result. Commands cannot read stdin and have no network. Set restart to true to reset the shell (cwd back to /workspace, variables cleared). Set background to true for a command that runs long or never ends (a server, a watcher, a long build): it starts in the shell's current directory with its variables and functions, returns its process id (p1, p2, ...) at once, and runs on with no timeout unless one is given; read its output with process_output, stop it with process_kill. A background command's own cd and variables do not persist.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "command": {"type": "string", "description": "The bash command to run."},
      "restart": {"type": "boolean", "description": "Restart the shell instead of running a command."},
      "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 604800, "description": "Wall-clock limit of this call in seconds (default: the sandbox policy's, 60; at most the server's ceiling). With background: the process's limit (default: none)."},
      "background": {"type": "boolean", "description": "Start the command in the background and return its process id at once (see process_output, process_kill)."},
      "rollback_on_failure": {"type": "boolean", "description": "If the command fails (non-zero exit, timeout, killed), put /workspace back exactly as it was before it. Not with background."}
    }
  },
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
},
{
  "name": "exec",
  "title": "Run one command",
  "description": "Run one command in the sandbox and return its full result: exit code, stdout, stderr, duration, memory, and the limits it hit. Give argv (run directly) or command (run with /bin/sh -c). A non-zero exit code is a normal result; a timeout or an out-of-memory kill is reported as an error. With background true it returns the process's id (p1, p2, ...) at once instead and the command runs on (no timeout unless given): read its output with process_output, write to its stdin with process_stdin when started with interactive true, stop it with process_kill.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "argv": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "The program and its arguments."},
      "command": {"type": "string", "description": "A shell command line, run with /bin/sh -c (when argv is not given)."},
      "cwd": {"type": "string", "description": "Working directory inside the sandbox (default /workspace)."},
      "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Extra environment variables."},
      "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 604800, "description": "Wall-clock limit in seconds (default: the sandbox policy's, 60; at most the server's ceiling, one week at most)."},
      "stdin": {"type": "string", "description": "Text given to the command on its stdin (default: none, /dev/null)."},
      "output_limit": {"type": ["integer", "string"], "description": "Bytes of stdout and of stderr kept, a number or a size such as \"64K\" (default: the sandbox policy's, 1M; at most the server's ceiling). With background: the size of the buffer that keeps its latest output."},
      "background": {"type": "boolean", "description": "Start the command in the background and return its process id at once."},
      "interactive": {"type": "boolean", "description": "With background: keep its stdin open for process_stdin (stdin, when given, is written first)."},
      "rollback_on_failure": {"type": "boolean", "description": "If the command fails (non-zero exit, timeout, killed, out of memory), put /workspace back exactly as it was before it; the result's rollback says so. Not with background."}
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
},
{
  "name": "process_list",
  "title": "List background processes",
  "description": "List the sandbox's background processes (started by bash or exec with background true), oldest first: id, command, state (running or exited, with how it ended), and how much output each has written.",
  "inputSchema": {"type": "object", "properties": {}},
  "outputSchema": {
    "type": "object",
    "properties": {"processes": {"type": "array", "items": PROCESS}},
    "required": ["processes"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
},
{
  "name": "process_output",
  "title": "Read a background process's output",
  "description": "Return the output (stdout and stderr together, in order) that a background process wrote since the last process_output of it in this session, then its state: still running, or how it exited. Set wait_seconds to wait up to that long for it to exit first (it returns as soon as it does). A long output is cut in the middle as bash's is, the whole saved in a file under /workspace/.agentbox/bash-output. The sandbox keeps the latest output of each process only (its output_limit, 1M by default): what was dropped before it was read is said.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "proc": {"type": "string", "description": "The process id, e.g. p1."},
      "wait_seconds": {"type": "number", "minimum": 0, "maximum": 604800, "description": "Wait up to this many seconds for the process to exit before returning (default 0: return at once; at most the server's ceiling)."}
    },
    "required": ["proc"]
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "output": {"type": "string"},
      "from": {"type": "integer"},
      "next": {"type": "integer"},
      "process": PROCESS
    },
    "required": ["output", "from", "next", "process"]
  },
  "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}
},
{
  "name": "process_kill",
  "title": "Signal a background process",
  "description": "Send a signal to a background process (its process group, as Ctrl-C at a terminal reaches a job): TERM by default; KILL ends its whole process tree at once. Waits up to 2 seconds for it to exit and says whether it did.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "proc": {"type": "string", "description": "The process id, e.g. p1."},
      "signal": {"type": ["string", "integer"], "description": "A signal name (TERM, INT, HUP, KILL, ...) or number; default TERM."}
    },
    "required": ["proc"]
  },
  "outputSchema": PROCESS,
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
},
{
  "name": "process_stdin",
  "title": "Write to a background process's stdin",
  "description": "Write text to the stdin of a background process started by exec with background and interactive true; set close to true to close its stdin after it (the process then reads end-of-file). Up to 1 MiB may wait for the process to read it.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "proc": {"type": "string", "description": "The process id, e.g. p1."},
      "data": {"type": "string", "description": "The text to write (include the newline a line-reading program waits for)."},
      "close": {"type": "boolean", "description": "Close its stdin after the data."}
    },
    "required": ["proc"]
  },
  "outputSchema": PROCESS,
  "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
}
])json";

json BuildDefinitions() {
  // PROCESS stands for the process schema wherever it goes (one copy of it above).
  std::string text = kTools;
  const std::string process = kProcessInfoSchema;
  for (size_t at = text.find("PROCESS"); at != std::string::npos; at = text.find("PROCESS", at)) {
    text.replace(at, 7, process);
    at += process.size();
  }
  json tools = json::parse(text, nullptr, /*allow_exceptions=*/false);
  json exec_schema = json::parse(kExecResultSchema, nullptr, /*allow_exceptions=*/false);
  json process_schema = json::parse(kProcessInfoSchema, nullptr, /*allow_exceptions=*/false);
  if (!tools.is_array()) return json::array();  // a typo above; the unit test catches it
  std::string snapshot_tools = SnapshotToolsJson();
  const std::string snapshot = SnapshotSchemaJson();
  for (size_t at = snapshot_tools.find("SNAPSHOT"); at != std::string::npos;
       at = snapshot_tools.find("SNAPSHOT", at)) {
    snapshot_tools.replace(at, 8, snapshot);
    at += snapshot.size();
  }
  json more = json::parse(snapshot_tools, nullptr, /*allow_exceptions=*/false);
  if (!more.is_array()) return json::array();
  for (json& tool : more) tools.push_back(std::move(tool));
  for (json& tool : tools) {
    // exec answers with its result, or with the process when it ran in the background.
    if (tool.value("name", "") == kExecTool) {
      tool["outputSchema"] = {{"type", "object"},
                              {"anyOf", json::array({exec_schema, process_schema})}};
    }
  }
  return tools;
}

json OpenWorld(json tools) {
  for (json& tool : tools) {
    const std::string name = tool.value("name", "");
    if (name == kBashTool || name == kExecTool) tool["annotations"]["openWorldHint"] = true;
  }
  return tools;
}

}  // namespace

const json& ToolDefinitions(bool open_world) {
  static const json* const kClosed = new json(BuildDefinitions());
  static const json* const kOpen = new json(OpenWorld(*kClosed));
  return open_world ? *kOpen : *kClosed;
}

bool IsProcessTool(std::string_view name) {
  return name == kProcessListTool || name == kProcessOutputTool || name == kProcessKillTool ||
         name == kProcessStdinTool;
}

bool IsSnapshotTool(std::string_view name) {
  return name == kSnapshotCreateTool || name == kSnapshotListTool || name == kSnapshotRestoreTool ||
         name == kSnapshotDiffTool || name == kSnapshotDeleteTool || name == kSessionLogTool;
}

bool IsKnownTool(std::string_view name) {
  for (const json& tool : ToolDefinitions()) {
    if (tool.value("name", "") == name) return true;
  }
  return false;
}

}  // namespace agentbox::mcp
