#include "http/routes.h"

#include <vector>

#include "proto/process_wire.h"

namespace agentbox {
namespace {

static_assert(kMaxStdinBody == kMaxPendingStdinBytes, "one POST .../stdin is what may wait");

constexpr std::string_view kJson = "application/json";

// The order is the order of docs/api.md and of the OpenAPI paths.
constexpr Route kRoutes[] = {
    {RouteId::kHealthz, "GET", "/healthz", "healthz", "Liveness: 200 while the server accepts",
     false, BodyKind::kNone, "", 200, "text/plain", "", "", ""},
    {RouteId::kMetrics, "GET", "/metrics", "metrics", "Prometheus metrics", true, BodyKind::kNone,
     "", 200, "text/plain", "", "", "401"},
    {RouteId::kOpenApi, "GET", "/v1/openapi.json", "openapi", "This API as OpenAPI 3", true,
     BodyKind::kNone, "", 200, kJson, "", "", "401"},
    {RouteId::kListSandboxes, "GET", "/v1/sandboxes", "listSandboxes", "The caller's sandboxes",
     true, BodyKind::kNone, "", 200, kJson, "", "SandboxList", "401"},
    {RouteId::kCreateSandbox, "POST", "/v1/sandboxes", "createSandbox",
     "Create a sandbox from policy fields and an optional name", true, BodyKind::kJson, "", 201,
     kJson, "CreateSandbox", "Sandbox", "400,401,403,409,413,429,503"},
    {RouteId::kGetSandbox, "GET", "/v1/sandboxes/{id}", "getSandbox",
     "One sandbox (what `agentbox inspect` prints)", true, BodyKind::kNone, "", 200, kJson, "",
     "Sandbox", "401,404"},
    {RouteId::kDeleteSandbox, "DELETE", "/v1/sandboxes/{id}", "deleteSandbox",
     "Kill and remove a sandbox", true, BodyKind::kNone, "force", 200, kJson, "", "Removed",
     "401,404,409"},
    {RouteId::kVerifySandbox, "GET", "/v1/sandboxes/{id}/verify", "verifySandbox",
     "Isolation self-report: a probe inside the sandbox, compared with the policy", true,
     BodyKind::kNone, "", 200, kJson, "", "VerifyReport", "401,404,429,503"},
    {RouteId::kExec, "POST", "/v1/sandboxes/{id}/exec", "exec",
     "Run one command; JSON result, or an NDJSON / SSE stream of output and result", true,
     BodyKind::kJson, "", 200, kJson, "ExecRequest", "ExecResult", "400,401,404,413,429,503"},
    {RouteId::kExecTty, "GET", "/v1/sandboxes/{id}/exec/tty", "execTty",
     "Run one command on a terminal (a PTY) over a WebSocket: keys, resizes and output as "
     "messages, the exec result last",
     true, BodyKind::kNone, "", 101, "", "", "", "400,401,404,426,429,503"},
    {RouteId::kListProcesses, "GET", "/v1/sandboxes/{id}/processes", "listProcesses",
     "The sandbox's background processes (started with \"detach\"), oldest first", true,
     BodyKind::kNone, "", 200, kJson, "", "ProcessList", "401,404,503"},
    {RouteId::kGetProcess, "GET", "/v1/sandboxes/{id}/processes/{proc}", "getProcess",
     "One background process", true, BodyKind::kNone, "", 200, kJson, "", "Process",
     "400,401,404,503"},
    {RouteId::kProcessLogs, "GET", "/v1/sandboxes/{id}/processes/{proc}/logs", "processLogs",
     "A background process's output as an NDJSON / SSE stream; with follow=1 until it exits", true,
     BodyKind::kNone, "follow,since,stream", 200, "application/x-ndjson", "", "ProcessLogEvent",
     "400,401,404,503"},
    {RouteId::kWaitProcess, "POST", "/v1/sandboxes/{id}/processes/{proc}/wait", "waitProcess",
     "Wait until a background process exits, or for timeout seconds at most", true, BodyKind::kNone,
     "timeout", 200, kJson, "", "Process", "400,401,404,503"},
    {RouteId::kKillProcess, "POST", "/v1/sandboxes/{id}/processes/{proc}/kill", "killProcess",
     "Send a signal (default TERM) to a background process", true, BodyKind::kJson, "", 200, kJson,
     "KillRequest", "Process", "400,401,404,413,503"},
    {RouteId::kWriteProcessStdin, "POST", "/v1/sandboxes/{id}/processes/{proc}/stdin",
     "writeProcessStdin",
     "Write the body's bytes (at most 1 MiB) to an interactive background process's stdin", true,
     BodyKind::kBytes, "close", 200, kJson, "", "Process", "400,401,404,413,503"},
    {RouteId::kReadFile, "GET", "/v1/sandboxes/{id}/files", "readFile",
     "Read a file's bytes, or list a directory with list=1", true, BodyKind::kNone, "path,list",
     200, "application/octet-stream", "", "", "400,401,403,404,413,503"},
    {RouteId::kWriteFile, "PUT", "/v1/sandboxes/{id}/files", "writeFile",
     "Write a file atomically (body = its bytes)", true, BodyKind::kBytes, "path,mode,parents", 200,
     kJson, "", "Written", "400,401,403,404,413,503"},
    {RouteId::kDeleteFile, "DELETE", "/v1/sandboxes/{id}/files", "deleteFile",
     "Remove a file or directory", true, BodyKind::kNone, "path,recursive", 200, kJson, "",
     "Removed", "400,401,403,404,503"},
    {RouteId::kEditFile, "POST", "/v1/sandboxes/{id}/files/edit", "editFile",
     "Replace the one occurrence of old_str with new_str", true, BodyKind::kJson, "", 200, kJson,
     "EditRequest", "Written", "400,401,403,404,413,503"},
    {RouteId::kListSnapshots, "GET", "/v1/sandboxes/{id}/snapshots", "listSnapshots",
     "The sandbox's snapshots, oldest first", true, BodyKind::kNone, "", 200, kJson, "",
     "SnapshotList", "401,404"},
    {RouteId::kCreateSnapshot, "POST", "/v1/sandboxes/{id}/snapshots", "createSnapshot",
     "Snapshot the sandbox's workspace (btrfs: every block shared)", true, BodyKind::kJson, "", 201,
     kJson, "SnapshotRequest", "Snapshot", "400,401,404,409,413,503"},
    {RouteId::kDeleteSnapshot, "DELETE", "/v1/sandboxes/{id}/snapshots/{snap}", "deleteSnapshot",
     "Remove a snapshot", true, BodyKind::kNone, "", 200, kJson, "", "Removed", "400,401,404,503"},
    {RouteId::kRestoreSnapshot, "POST", "/v1/sandboxes/{id}/snapshots/{snap}/restore",
     "restoreSnapshot",
     "Put the workspace back exactly as the snapshot holds it (refused while a command runs)", true,
     BodyKind::kNone, "", 200, kJson, "", "Restored", "400,401,404,503"},
    {RouteId::kDiffSnapshot, "GET", "/v1/sandboxes/{id}/snapshots/{snap}/diff", "diffSnapshot",
     "What changed in the workspace since the snapshot", true, BodyKind::kNone, "", 200, kJson, "",
     "WorkspaceDiff", "400,401,404,503"},
    {RouteId::kForkSnapshot, "POST", "/v1/sandboxes/{id}/snapshots/{snap}/fork", "forkSnapshot",
     "A new sandbox of the same policy whose workspace starts as the snapshot", true,
     BodyKind::kJson, "", 201, kJson, "ForkRequest", "Sandbox", "400,401,403,404,409,413,429,503"},
    {RouteId::kSessionLog, "GET", "/v1/sandboxes/{id}/log", "sessionLog",
     "The sandbox's session log: JSON lines, every exec and file operation with its digests", true,
     BodyKind::kNone, "", 200, "application/x-ndjson", "", "", "401,404"},
    {RouteId::kReadArchive, "GET", "/v1/sandboxes/{id}/archive", "readArchive",
     "A file or directory tree as a tar stream (POSIX pax, uncompressed; at most 64 MiB)", true,
     BodyKind::kNone, "path", 200, "application/x-tar", "", "", "400,401,403,404,413,503"},
    {RouteId::kWriteArchive, "PUT", "/v1/sandboxes/{id}/archive", "writeArchive",
     "Extract a tar stream (the body, uncompressed) into an existing directory", true,
     BodyKind::kBytes, "path", 200, kJson, "", "Extracted", "400,401,403,404,413,503"},
    {RouteId::kMcpPost, "POST", "/mcp", "mcp",
     "MCP Streamable HTTP: a JSON-RPC message (or batch); a request is answered with JSON, or "
     "with an SSE stream of its notifications and response",
     true, BodyKind::kJson, "", 200, kJson, "JsonRpc", "JsonRpc", "400,401,403,404,413,429,503"},
    {RouteId::kMcpGet, "GET", "/mcp", "mcpStream",
     "No server-initiated SSE stream is offered: always 405, as Streamable HTTP allows", true,
     BodyKind::kNone, "", 405, kJson, "", "Error", "401,403"},
    {RouteId::kMcpDelete, "DELETE", "/mcp", "mcpEndSession",
     "End an MCP session (removes its sandbox)", true, BodyKind::kNone, "", 204, "", "", "",
     "400,401,403,404"},
};

constexpr QueryParam kQueryParams[] = {
    {"force", "boolean", false, "kill commands still running instead of answering 409"},
    {"path", "string", true, "a path beneath /workspace (absolute, or relative to it)"},
    {"list", "boolean", false, "answer a directory listing (DirListing JSON) instead of bytes"},
    {"mode", "string", false, "octal permission bits of a new file, 0644 by default"},
    {"parents", "boolean", false, "make missing parent directories (default true)"},
    {"recursive", "boolean", false, "remove a non-empty directory too"},
    {"follow", "boolean", false, "go on streaming the output until the process exits"},
    {"since", "integer", false,
     "only output from this byte offset on (a previous stream's \"next\"); default 0"},
    {"stream", "string", false,
     "\"ndjson\" (the default) or \"sse\"; an Accept of text/event-stream picks SSE too"},
    {"timeout", "string", false,
     "seconds or a duration (\"30s\"); absent: until the process exits (or the client leaves)"},
    {"close", "boolean", false, "close the process's stdin after the body's bytes (EOF)"},
};

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    if (path.front() == '/') path.remove_prefix(1);
    if (path.empty()) break;  // a trailing slash names the same resource
    size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
  }
  return out;
}

bool MatchPattern(std::string_view pattern, std::string_view path,
                  std::map<std::string, std::string>* params) {
  std::vector<std::string_view> want = Segments(pattern);
  std::vector<std::string_view> got = Segments(path);
  if (want.size() != got.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i].starts_with('{')) {
      if (got[i].empty()) return false;
      (*params)[std::string(want[i].substr(1, want[i].size() - 2))] = std::string(got[i]);
    } else if (want[i] != got[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::span<const Route> Routes() { return kRoutes; }
std::span<const QueryParam> QueryParams() { return kQueryParams; }

const QueryParam* FindQueryParam(std::string_view name) {
  for (const QueryParam& q : kQueryParams) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

uint64_t MaxBodyBytes(const Route& route) {
  if (route.id == RouteId::kWriteProcessStdin) return kMaxStdinBody;
  return route.body == BodyKind::kBytes ? kMaxFileBody : kMaxJsonBody;
}

StatusOr<RouteMatch> MatchRoute(std::string_view method, std::string_view path,
                                std::string* allow) {
  std::string allowed;
  for (const Route& route : kRoutes) {
    std::map<std::string, std::string> params;
    if (!MatchPattern(route.pattern, path, &params)) continue;
    if (route.method == method) return RouteMatch{&route, std::move(params)};
    allowed += (allowed.empty() ? "" : ", ") + std::string(route.method);
  }
  if (allowed.empty()) return NotFound("no such route: " + std::string(path));
  if (allow) *allow = allowed;
  return InvalidArgument("method " + std::string(method) + " not allowed on " + std::string(path));
}

}  // namespace agentbox
